/**
 * Recording real tools/call results for `mcp-retrofit infer`: what the pipeline and tests import.
 * `createRecorder` (recorder.ts) writes; `followGenerations` (follow.ts) keeps it configured across reloads;
 * `readRecordings` (read.ts) reads back; files.ts owns the layout.
 */
export { createRecorder, DEFAULT_QUEUE_BYTES, DEFAULT_QUEUE_ITEMS, type Recorder, type RecorderConfig, type RecorderOptions, type RecordSample } from './recorder.js';
export { readRecordings, type ReadRecordings } from './read.js';
export { isRecordingFileName, recordingFileName, toolDirName, type Recording } from './files.js';
export { toolDir } from './write.js';
export { followGenerations, type FollowingRecorder } from './follow.js';
