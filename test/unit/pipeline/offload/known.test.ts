import { describe, expect, it } from 'vitest';
import { KnownTools } from '../../../../src/pipeline/offload/known.js';

describe('KnownTools', () => {
  it('plans a compile for a tool the worker lacks, and evicts the least recently used past its bound', () => {
    const known = new KnownTools(2);
    expect(known.use(1)).toEqual({ toolId: 1, compile: true });
    expect(known.use(2)).toEqual({ toolId: 2, compile: true });
    expect(known.use(1)).toEqual({ toolId: 1, compile: false });
    expect(known.use(3)).toEqual({ toolId: 3, compile: true, forget: [2] });
    expect(known.size).toBe(2);
  });

  it('undoes a job that never reached the worker: the config is sent again, the forget is told later', () => {
    const known = new KnownTools(1);
    known.use(1);
    const lost = known.use(2);
    expect(lost).toEqual({ toolId: 2, compile: true, forget: [1] });
    known.undo(lost);
    expect(known.size).toBe(0);
    expect(known.use(2)).toEqual({ toolId: 2, compile: true, forget: [1] });
  });

  it('tells the worker of a dropped tool with its next job, once', () => {
    const known = new KnownTools();
    known.use(1);
    known.dropped(1);
    known.dropped(7);
    expect(known.size).toBe(0);
    expect(known.use(2)).toEqual({ toolId: 2, compile: true, forget: [1] });
    expect(known.use(2)).toEqual({ toolId: 2, compile: false });
  });
});
