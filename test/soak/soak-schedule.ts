/**
 * The soak's schedule: a pure function of the seed and the options. Inputs to the sessions
 * (prompts with tools, approvals answered later, aborts, steers, follow-ups) and faults (a worker
 * SIGKILLed and replaced, a worker SIGSTOPped past its lease, every connection to Postgres or
 * Redis cut or stalled), each at a time from the start. `formatSchedule` prints it, so a run can
 * be read and replayed with `--seed`.
 *
 * @example
 * const schedule = soakSchedule({ seed: 7, durationMs: 60_000, sessions: 40, workers: 3, leaseTtlMs: 2_000 });
 * for (const line of formatSchedule(schedule)) console.log(line);
 */
import type { SessionInput } from '../../src/scale/advance-session.js';
import { planText, toolCallIdOf } from './soak-plan.js';
import { seededRandom, type SeededRandom } from './seeded-random.js';

export interface SoakScheduleOptions {
  seed: number;
  /** How long faults and inputs go on; the quiet period comes after. */
  durationMs: number;
  sessions: number;
  /** Worker processes (slots): a killed worker's slot gets a new process. */
  workers: number;
  /** The workers' lease TTL: pauses last longer than it. */
  leaseTtlMs: number;
  /** A worker silent this long is declared dead and its turns move (pauses go past it too, at times). */
  deadAfterMs: number;
}

export type ProxyTarget = 'postgres' | 'redis';

export type SoakAction =
  | { at: number; kind: 'input'; sessionId: string; requestId: string; input: SessionInput }
  | { at: number; kind: 'kill'; slot: number; restartAfterMs: number }
  | { at: number; kind: 'pause'; slot: number; forMs: number }
  | { at: number; kind: 'cut'; target: ProxyTarget; mode: 'reset' | 'blackhole'; forMs: number }
  | { at: number; kind: 'stall'; target: ProxyTarget; forMs: number };

export interface SoakSchedule {
  options: SoakScheduleOptions;
  sessionIds: string[];
  /** In time order. */
  actions: SoakAction[];
}

/** Cuts and stalls last 0.5-4 s. */
export const CUT_MS: readonly [number, number] = [500, 4_000];

/**
 * The soak's session ids: mostly `sNN`, and pairs that differ only in `_` and `-` (`r_N`, `r-N`),
 * so that an input routed by a pattern instead of the exact id shows as a misrouted input.
 */
export function soakSessionIds(count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const group = Math.floor(i / 8);
    if (i % 8 === 6) return `r_${group}`;
    if (i % 8 === 7) return `r-${group}`;
    return `s${String(i).padStart(2, '0')}`;
  });
}

export function soakSchedule(options: SoakScheduleOptions): SoakSchedule {
  checkOptions(options);
  const random = seededRandom(options.seed);
  const sessionIds = soakSessionIds(options.sessions);
  const actions: SoakAction[] = [];
  for (const sessionId of sessionIds) actions.push(...sessionInputs(random, sessionId, options.durationMs));
  actions.push(...faults(random, options));
  actions.sort((a, b) => a.at - b.at);
  return { options, sessionIds, actions };
}

function checkOptions(options: SoakScheduleOptions): void {
  const positive = (name: keyof SoakScheduleOptions, min: number) => {
    const value = options[name];
    if (!Number.isInteger(value) || value < min) throw new RangeError(`soak option ${name} must be an integer >= ${min}, not ${String(value)}`);
  };
  positive('seed', 0);
  positive('durationMs', 1_000);
  positive('sessions', 1);
  positive('workers', 1);
  positive('leaseTtlMs', 100);
  positive('deadAfterMs', 100);
}

type Episode = 'text' | 'tools' | 'approval' | 'abort' | 'steer';

/** Episodes of one session, one after another: a prompt and what follows it. */
function sessionInputs(random: SeededRandom, sessionId: string, durationMs: number): SoakAction[] {
  const actions: SoakAction[] = [];
  let at = Math.round(random.between(0, durationMs * 0.25));
  let count = 0;
  const input = (offset: number, kind: string, value: SessionInput) => {
    actions.push({ at: at + Math.round(offset), kind: 'input', sessionId, requestId: `${sessionId}:${count}:${kind}`, input: value });
  };
  while (at < durationMs * 0.85) {
    count++;
    const tag = `${sessionId}/${count}`;
    const episode = random.weighted<Episode>({ text: 1, tools: 3, approval: 2.5, abort: 1.5, steer: 2 });
    const tools = episode === 'text' ? 0 : random.int(episode === 'abort' ? 2 : 1, 3);
    const ask = episode === 'approval' || (episode === 'steer' && random.chance(0.5)) ? random.int(1, tools) : 0;
    const toolMs = episode === 'abort' ? random.int(800, 2_500) : random.int(50, 1_200);
    input(0, 'prompt', { type: 'prompt', prompt: planText({ tag, tools, ask, toolMs }) });
    if (ask > 0 && episode === 'approval') {
      const toolCallId = toolCallIdOf(tag, ask);
      if (random.chance(0.75)) input(random.between(300, 8_000), 'approve', { type: 'approve', toolCallId });
      else input(random.between(300, 8_000), 'deny', { type: 'deny', toolCallId, reason: 'not now' });
    }
    if (episode === 'abort') input(random.between(200, 5_000), 'abort', { type: 'abort', reason: 'the user pressed stop' });
    if (episode === 'steer') {
      input(random.between(300, 5_000), 'steer', { type: 'steer', message: planText({ tag: `${tag}s`, tools: random.int(0, 1), ask: 0, toolMs: random.int(50, 600) }) });
    }
    if (episode === 'tools' && random.chance(0.3)) {
      input(random.between(200, 4_000), 'follow-up', { type: 'follow-up', message: planText({ tag: `${tag}f`, tools: random.int(0, 1), ask: 0, toolMs: random.int(50, 600) }) });
    }
    at += Math.round(random.between(4_000, 25_000));
  }
  return actions;
}

type Fault = 'kill' | 'pause' | 'cut-postgres' | 'cut-redis' | 'cut-both' | 'stall-postgres';

/**
 * Faults from 2 s on, 2.5-8 s apart. A slot has one fault at a time (a killed worker's
 * replacement starts in ~5 s), at least one slot is left alone, and a proxy has one cut or stall
 * at a time.
 */
function faults(random: SeededRandom, options: SoakScheduleOptions): SoakAction[] {
  const actions: SoakAction[] = [];
  const slotBusyUntil = Array.from({ length: options.workers }, () => 0);
  const proxyBusyUntil: Record<ProxyTarget, number> = { postgres: 0, redis: 0 };
  const cutMs = () => Math.round(random.between(CUT_MS[0], CUT_MS[1]));
  for (let at = 2_000; at < options.durationMs; at += Math.round(random.between(2_500, 8_000))) {
    const fault = random.weighted<Fault>({ kill: 2.5, pause: 2.5, 'cut-postgres': 2, 'cut-redis': 1, 'cut-both': 1, 'stall-postgres': 1 });
    if (fault === 'kill' || fault === 'pause') {
      const free = slotBusyUntil.flatMap((until, slot) => (until <= at ? [slot] : []));
      if (free.length < 2 && options.workers > 1) continue;
      if (options.workers === 1 && free.length === 0) continue;
      const slot = random.pick(free);
      if (fault === 'kill') {
        const restartAfterMs = Math.round(random.between(0, 3_000));
        actions.push({ at, kind: 'kill', slot, restartAfterMs });
        slotBusyUntil[slot] = at + restartAfterMs + 6_000;
      } else {
        // Past the lease always; past the time after which the worker is declared dead, at times.
        const forMs = Math.round(random.between(options.leaseTtlMs * 1.2, Math.max(options.leaseTtlMs * 1.5, options.deadAfterMs * 1.6)));
        actions.push({ at, kind: 'pause', slot, forMs });
        slotBusyUntil[slot] = at + forMs + 1_000;
      }
      continue;
    }
    const targets: ProxyTarget[] = fault === 'cut-both' ? ['postgres', 'redis'] : fault === 'cut-redis' ? ['redis'] : ['postgres'];
    if (targets.some((target) => proxyBusyUntil[target] > at)) continue;
    const forMs = cutMs();
    const mode = random.chance(0.5) ? 'reset' : 'blackhole';
    for (const target of targets) {
      actions.push(fault === 'stall-postgres' ? { at, kind: 'stall', target, forMs } : { at, kind: 'cut', target, mode, forMs });
      proxyBusyUntil[target] = at + forMs + 500;
    }
  }
  return actions;
}

/** One line per action: time from the start, what, and its details. */
export function formatSchedule(schedule: SoakSchedule): string[] {
  const { options } = schedule;
  const lines = [
    `soak schedule: seed ${options.seed}, ${options.durationMs / 1000} s, ${options.sessions} sessions, ${options.workers} workers, lease ${options.leaseTtlMs} ms, dead after ${options.deadAfterMs} ms`,
  ];
  for (const action of schedule.actions) lines.push(`  +${(action.at / 1000).toFixed(3).padStart(8)} s  ${describeAction(action)}`);
  return lines;
}

export function describeAction(action: SoakAction): string {
  switch (action.kind) {
    case 'input': {
      const { input } = action;
      const detail =
        input.type === 'prompt' ? textOf(input.prompt)
        : input.type === 'steer' || input.type === 'follow-up' ? textOf(input.message)
        : input.type === 'approve' || input.type === 'deny' ? input.toolCallId
        : '';
      return `${input.type.padEnd(9)} ${action.sessionId.padEnd(5)} ${action.requestId}${detail ? `  ${detail}` : ''}`;
    }
    case 'kill':
      return `KILL      slot ${action.slot} (a new worker ${action.restartAfterMs} ms later)`;
    case 'pause':
      return `PAUSE     slot ${action.slot} for ${action.forMs} ms`;
    case 'cut':
      return `CUT       ${action.target} for ${action.forMs} ms (${action.mode})`;
    case 'stall':
      return `STALL     ${action.target} for ${action.forMs} ms`;
  }
}

function textOf(message: unknown): string {
  return typeof message === 'string' ? message : JSON.stringify(message);
}
