import { describe, expect, it } from 'vitest';
import { programDirectories } from '../../src/tools/program-directories.js';

describe('programDirectories: what the sandbox shows of /tmp so that a command is found there as outside', () => {
  it('takes the PATH entries that lie in /tmp, in order and once each', () => {
    expect(programDirectories('node', '/tmp/node22/bin:/usr/bin:/tmp/tools/:/tmp/node22/bin', '/home/me/ws')).toEqual(['/tmp/node22/bin', '/tmp/tools']);
  });

  it('takes the directory of a command given as a path, relative to the working directory', () => {
    expect(programDirectories('./bin/server', '/usr/bin', '/tmp/ws')).toEqual(['/tmp/ws/bin']);
    expect(programDirectories('/tmp/x/run.sh', undefined, '/home/me')).toEqual(['/tmp/x']);
  });

  it('never shows /tmp itself, nor relative PATH entries, nor directories outside /tmp', () => {
    expect(programDirectories('node', '/tmp:/tmp/:bin:.::/usr/local/bin:/tmpfoo/bin', '/home/me')).toEqual([]);
    expect(programDirectories('../run', '/usr/bin', '/tmp/ws')).toEqual([]);
  });
});
