// `loopchart/report`: the HTML report of a run trace.
export { renderTraceReport, type TraceReportOptions } from './render-trace-report.js';
export { parseRunTrace, TraceFormatError } from './trace-schema.js';
