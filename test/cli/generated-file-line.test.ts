import { describe, expect, it } from 'vitest';
import { humanReporter } from '../../src/cli/human-reporter.js';
import { createPalette } from '../../src/cli/palette.js';
import { noIndicator } from '../../src/cli/spinner.js';
import type { AgentEvent } from '../../src/core/events.js';

function reported(events: AgentEvent[]): { stdout: string; stderr: string } {
  let stdout = '';
  let stderr = '';
  const reporter = humanReporter({ stdout: { write: (text) => void (stdout += text) }, stderr: { write: (text) => void (stderr += text) }, palette: createPalette(false), indicator: noIndicator });
  for (const event of events) reporter.event(event);
  return { stdout, stderr };
}

const scope = { runId: 'r1', step: 1, attempt: 1 };

describe('a file the model generated, in the human output', () => {
  it('is one line on stderr with its media type and size, and nothing on stdout', () => {
    const { stdout, stderr } = reported([
      { type: 'file', ...scope, file: { type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'A'.repeat(4096) } } },
      { type: 'file', ...scope, file: { type: 'reasoning-file', mediaType: 'text/plain', data: { type: 'data', data: 'aGk=' } } },
      { type: 'file', ...scope, file: { type: 'file', mediaType: 'image/png', data: { type: 'url', url: new URL('https://files.example.invalid/cat.png') } } },
    ]);
    expect(stdout).toBe('');
    expect(stderr).toContain('▣ a file: image/png, 3.0 KiB (kept in the history, not shown)');
    expect(stderr).toContain('▣ a file of the reasoning: text/plain, 2 bytes (kept in the history, not shown)');
    expect(stderr).toContain('▣ a file: image/png, at https://files.example.invalid/cat.png (kept in the history, not shown)');
  });
});
