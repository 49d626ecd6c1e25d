import { checkSessionRecord } from './session-record-check.js';
import { SESSION_FORMAT, SESSION_FORMAT_VERSION, SESSION_FORMAT_VERSIONS_READ, SessionFormatError, type SessionHeader, type SessionLog, type SessionRecord } from './session-store.js';

/** One record as one line. */
export function encodeLine(record: SessionHeader | SessionRecord): string {
  return `${JSON.stringify(record)}\n`;
}

/**
 * Parses a session file. A last line that is cut off (a crash mid-write) is
 * skipped with a warning; a bad line anywhere else (not JSON, or not a record this version reads:
 * `checkSessionRecord`), a missing header or another format version is a `SessionFormatError`
 * that names the file and the line.
 */
export function decodeLog(text: string, source: string): SessionLog {
  const lines = text.split('\n');
  const complete = text.endsWith('\n');
  if (complete) lines.pop();
  const warnings: string[] = [];
  const parsed: unknown[] = [];
  lines.forEach((line, index) => {
    const last = index === lines.length - 1;
    try {
      parsed.push(JSON.parse(line));
    } catch {
      if (last && !complete) {
        warnings.push(`${source}: skipped a torn last line (line ${index + 1}, ${line.length} characters): the process was killed while writing it`);
        return;
      }
      throw new SessionFormatError(`${source}: line ${index + 1} is not valid JSON`);
    }
    if (last && !complete) {
      warnings.push(`${source}: the last line (line ${index + 1}) has no newline; it was read anyway`);
    }
  });
  const [header, ...records] = parsed;
  checkSessionHeader(header, source);
  records.forEach((record, index) => checkSessionRecord(record, `${source}: line ${index + 2}`));
  return { header, records: records as SessionRecord[], warnings };
}

/**
 * That `header` starts a session this version reads.
 * @throws SessionFormatError when it is not a loopchart header, or of another format version.
 */
export function checkSessionHeader(header: unknown, source: string): asserts header is SessionHeader {
  const candidate = header as Partial<SessionHeader> | undefined;
  if (!candidate || candidate.type !== 'header' || candidate.format !== SESSION_FORMAT) {
    throw new SessionFormatError(`${source}: not a loopchart session (no "${SESSION_FORMAT}" header on line 1)`);
  }
  if (typeof candidate.version !== 'number' || !SESSION_FORMAT_VERSIONS_READ.includes(candidate.version)) {
    throw new SessionFormatError(
      `${source}: session format version ${String(candidate.version)} is not supported by this loopchart (it reads versions ${SESSION_FORMAT_VERSIONS_READ.join(' and ')}, and writes version ${SESSION_FORMAT_VERSION})`,
    );
  }
}
