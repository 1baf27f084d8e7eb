/** The console's entry: styles, the live event stream, and the app. */
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { render } from 'preact';
import { App } from './app.js';
import { connectEvents } from './events.js';
import { onAuth } from './api.js';

const root = document.getElementById('app');
if (root !== null) render(<App />, root);
connectEvents();
// Once a token is given, the stream is opened again with it.
onAuth((needed) => {
  if (!needed) connectEvents();
});
