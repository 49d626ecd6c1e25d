// `loopchart/report`: the HTML report of a run trace, and the playback page of a stored session.
export { renderTraceReport, type TraceReportOptions } from './render-trace-report.js';
export { parseRunTrace, TraceFormatError } from './trace-schema.js';
export { startPlaybackServer, type PlaybackServer, type PlaybackServerOptions } from '../playback/playback-server.js';
export type { ForkRequest } from '../playback/fork-request.js';
