/**
 * Inlet latency of the context engine for ~50, 500 and 2,000-message generated conversations,
 * cold (fresh token cache, never-seen text) and warm (previous turn + one new turn, cache
 * warmed), in-process (`planContext`) and over HTTP, as ratios to the unavoidable floors:
 * warm → JSON round trip of the body; cold → raw tokenization of every message + JSON round trip.
 * Then a real ~680-turn conversation (LoCoMo dev, read from ../shared/data), warm: in-process
 * against its JSON round trip, and over HTTP call by call against a bare node:http echo server
 * that parses and re-serialises the same body; and the run inspector's cost there: the same turns to a second server
 * with `inspect: structure` and one with `inspect: off`, alternately, and the recording's own work per turn (build the
 * record, hand it to the run store's buffer) and the buffer's batch write to SQLite per run.
 * The process runs with the server's V8 setting (`tuneV8`);
 * BENCH_V8_DEFAULTS=1 measures with V8's defaults instead.
 */
import { LruTokenCache, planContext, type PlanResult } from '../src/domain/engine/index.js';
import type { ChatMessage } from './lib/chat-message.js';
import { startHttpTarget, type HttpTarget } from './lib/http-harness.js';
import { rawO200k } from './lib/raw-tokenizer.js';
import { conversationOfSize } from './lib/sized-conversation.js';
import { markdownTable } from './lib/table.js';
import { formatMs, summarize, timeAsync, timeSync } from './lib/timing.js';
import { MessageTokenCounter } from './lib/token-count.js';
import { startEchoServer } from './lib/echo-server.js';
import { loadLocomo } from './lib/locomo.js';
import { batchWritePerRun, recordingWork } from './lib/run-recording.js';
import { RUN_FLUSH_MS } from '../src/features/context/runs/run-buffer.js';
import { tuneV8 } from '../src/core/util/v8-tuning.js';

const SIZES = [50, 500, 2000];
const COLD_RUNS: Record<number, number> = { 50: 80, 500: 20, 2000: 6 };
const NEW_WORDS_RUNS: Record<number, number> = { 50: 40, 500: 8, 2000: 3 };
const WARM_RUNS: Record<number, number> = { 50: 100, 500: 40, 2000: 20 };
const BUDGET = 2000;
const MODEL = 'gpt-4o';
const WARM_TARGET = 3;
const COLD_TARGET = 1.25;

interface Row {
  size: number;
  mode: 'cold' | 'cold, new words' | 'warm';
  path: 'in-process' | 'HTTP';
  runs: number[];
  floors: number[];
}

// The V8 setting the server runs with (src/main.ts): the engine and the in-process HTTP target are measured as served.
if (process.env.BENCH_V8_DEFAULTS !== '1') tuneV8();
const started = performance.now();
const encoder = rawO200k();
const counter = new MessageTokenCounter();
const inProcessOptions = { maxTokens: BUDGET };

/** Messages with a per-run nonce so no cache anywhere (ours or the server's) has seen them. */
function unseen(messages: ChatMessage[], nonce: string): ChatMessage[] {
  return messages.map((message) => ({ role: message.role, content: `${message.content} [${nonce}]` }));
}

let wordCounter = 0;
/** Every word of four letters or more made unique, so no per-piece tokenizer memo has seen it (worst case). */
function newWords(messages: ChatMessage[]): ChatMessage[] {
  return messages.map((message) => ({
    role: message.role,
    content: message.content.replace(/[A-Za-z]{4,}/g, (word) => `${word}${(wordCounter++).toString(36)}`),
  }));
}

function jsonFloor(body: unknown): number {
  const text = JSON.stringify(body);
  return timeSync(() => JSON.stringify(JSON.parse(text)));
}

function tokenizeFloor(messages: readonly ChatMessage[]): number {
  return timeSync(() => {
    for (const message of messages) encoder.encode(message.content);
  });
}

function plan(messages: ChatMessage[], tokenCache: LruTokenCache, previousSequence?: string[]): PlanResult {
  return planContext({ messages, model: MODEL, options: inProcessOptions, tokenCache, previousSequence });
}

async function postInlet(target: HttpTarget, payload: string): Promise<number> {
  const { status, text } = await target.post('/context/filter/inlet', payload);
  if (status !== 200) throw new Error(`HTTP ${status}: ${text.slice(0, 200)}`);
  return (JSON.parse(text) as { messages?: unknown[] }).messages?.length ?? -1;
}

const inletPayload = (messages: ChatMessage[]): string =>
  JSON.stringify({ body: { model: MODEL, messages }, user: { id: 'u1', role: 'user' } });

// Warm-ups: encoders loaded, JIT warmed on a small conversation (not measured).
plan(conversationOfSize(999, 200), new LruTokenCache());
tokenizeFloor(conversationOfSize(998, 200));

const target = await startHttpTarget({ max_tokens: BUDGET });
const http = 'url' in target ? target : undefined;
if (http) await postInlet(http, inletPayload(conversationOfSize(997, 200)));

const echo = await startEchoServer();
const rows: Row[] = [];
const historyTokens: Record<number, number> = {};
let httpTrimmed = true;
for (const size of SIZES) {
  historyTokens[size] = counter.prompt(conversationOfSize(size, size));
  // Cold: a conversation never seen before, fresh token cache; then the same with every word new.
  for (const mode of ['cold', 'cold, new words'] as const) {
    const cold: Row = { size, mode, path: 'in-process', runs: [], floors: [] };
    const coldHttp: Row = { size, mode, path: 'HTTP', runs: [], floors: [] };
    for (let run = 0; run < (mode === 'cold' ? COLD_RUNS : NEW_WORDS_RUNS)[size]!; run++) {
      const base = unseen(conversationOfSize(size * 1000 + run, size), `c${size}-${run}`);
      const messages = mode === 'cold' ? base : newWords(base);
      cold.runs.push(timeSync(() => plan(messages, new LruTokenCache())));
      cold.floors.push(tokenizeFloor(messages) + jsonFloor({ model: MODEL, messages }));
      if (http) {
        const httpMessages = mode === 'cold' ? unseen(messages, 'http') : newWords(base);
        const payload = inletPayload(httpMessages);
        let sent = 0;
        coldHttp.runs.push(await timeAsync(async () => (sent = await postInlet(http, payload))));
        coldHttp.floors.push(tokenizeFloor(httpMessages) + jsonFloor({ model: MODEL, messages: httpMessages }));
        if (sent >= httpMessages.length) httpTrimmed = false;
      }
    }
    rows.push(cold);
    if (http) rows.push(coldHttp);
  }

  // Warm: the previous turn planned (cache warm), then the same history plus one new turn (assistant reply + user).
  const warm: Row = { size, mode: 'warm', path: 'in-process', runs: [], floors: [] };
  const warmHttp: Row = { size, mode: 'warm', path: 'HTTP', runs: [], floors: [] };
  for (let run = 0; run < WARM_RUNS[size]!; run++) {
    const messages = unseen(conversationOfSize(size * 1000 + 500 + run, size + 2), `w${size}-${run}`);
    const cache = new LruTokenCache(200_000);
    const previous = plan(messages.slice(0, size), cache);
    warm.runs.push(timeSync(() => plan(messages, cache, previous.sequence)));
    warm.floors.push(jsonFloor({ model: MODEL, messages }));
    if (http) {
      const httpMessages = unseen(messages, 'http');
      await postInlet(http, inletPayload(httpMessages.slice(0, size)));
      const payload = inletPayload(httpMessages);
      warmHttp.runs.push(await timeAsync(() => postInlet(http, payload)));
      warmHttp.floors.push(await timeAsync(() => echo.post(payload)));
    }
  }
  rows.push(warm);
  if (http) rows.push(warmHttp);
}
// A real conversation, warm: the previous turn sent, then the same history plus a reply and a new question.
const REAL_RUNS = 60;
const REAL_IN_PROCESS_TARGET = 2;
const REAL_HTTP_TARGET = 1.5;
const real = loadLocomo().sort((a, b) => b.turns.length - a.turns.length)[0]!;
const realQuestions = real.questions.map((question) => question.question);
const realTurn = (run: number): { previous: ChatMessage[]; next: ChatMessage[] } => {
  const history = real.turns.slice(0, real.turns.length - 2 * (REAL_RUNS + 10) + 2 * run);
  const previous: ChatMessage[] = [...history, { role: 'user', content: realQuestions[run % realQuestions.length]! }];
  return {
    previous,
    next: [
      ...previous,
      { role: 'assistant', content: 'Here is what I remember about that.' },
      { role: 'user', content: realQuestions[(run + 1) % realQuestions.length]! },
    ],
  };
};
// The run inspector's cost: the same turns to two more servers, one recording runs (inspect: structure, the
// default), one not (inspect: off), alternately.
const servers = http
  ? await Promise.all(['structure', 'off'].map((inspect) => startHttpTarget({ max_tokens: BUDGET, inspect })))
  : [];
const [httpOn, httpOff] = servers.map((server) => ('url' in server ? server : undefined));
/** A pause around each timed call, the same for both servers. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));
const realOff: number[] = [];
const realOn: number[] = [];
const realRecording: number[] = [];
const realInProcess: number[] = [];
const realJson: number[] = [];
const realHttp: number[] = [];
const realEcho: number[] = [];
const realCache = new LruTokenCache(200_000);
for (let run = 0; run < REAL_RUNS + 10; run++) {
  const { previous, next } = realTurn(run);
  plan(previous, realCache);
  const body = JSON.stringify({ model: MODEL, messages: next });
  // What a filter does in process: parse the body, plan, serialise what it sends.
  const inProcess = timeSync(() =>
    JSON.stringify({
      model: MODEL,
      messages: plan((JSON.parse(body) as { messages: ChatMessage[] }).messages, realCache).messages,
    }),
  );
  const json = jsonFloor({ model: MODEL, messages: next });
  let viaHttp = Number.NaN;
  let viaEcho = Number.NaN;
  let withRuns = Number.NaN;
  let withoutRuns = Number.NaN;
  if (http) {
    await postInlet(http, inletPayload(previous));
    const payload = inletPayload(next);
    viaHttp = await timeAsync(() => postInlet(http, payload));
    viaEcho = await timeAsync(() => echo.post(payload));
    if (httpOn && httpOff) {
      // Recording on and off, the same two turns each, in alternating order.
      for (const recorded of run % 2 ? [true, false] : [false, true]) {
        const target = recorded ? httpOn : httpOff;
        await postInlet(target, inletPayload(previous));
        await settle();
        const time = await timeAsync(() => postInlet(target, payload));
        await settle();
        if (recorded) withRuns = time;
        else withoutRuns = time;
      }
    }
  }
  if (run < 10) continue; // warm-up turns
  realOn.push(withRuns);
  realOff.push(withoutRuns);
  realInProcess.push(inProcess);
  realJson.push(json);
  realHttp.push(viaHttp);
  realEcho.push(viaEcho);
}
// The recording's own work, in this process with nothing else running: per turn, the warm plan, then the record of
// that plan built and written to SQLite (the same work the servers above do after each reply).
const realPlan: number[] = [];
let lastTurn: { result: PlanResult; messages: ChatMessage[] } | undefined;
for (let run = 0; run < REAL_RUNS + 10; run++) {
  const { previous, next } = realTurn(run);
  plan(previous, realCache);
  let result: PlanResult | undefined;
  const planned = timeSync(() => (result = plan(next, realCache)));
  const work = await recordingWork(result!, next);
  lastTurn = { result: result!, messages: next };
  if (run < 10) continue;
  realPlan.push(planned);
  realRecording.push(work);
}
// The buffer's write, per run: alone (a quiet server, one inlet per flush interval) and in the batch a server makes
// when inlets of this chat come back to back (as many as fit in one flush interval).
const busyBatch = Math.max(
  1,
  Math.floor(RUN_FLUSH_MS / (http ? summarize(realOff).median : summarize(realPlan).median)),
);
const writeAlone = await batchWritePerRun(lastTurn!.result, lastTurn!.messages, 1, 30);
const writeBusy = await batchWritePerRun(lastTurn!.result, lastTurn!.messages, busyBatch, 15);
await echo.close();
if (http) await http.close();
for (const server of [httpOn, httpOff]) await server?.close();

console.log(`# Inlet latency — budget ${BUDGET} tokens, model ${MODEL}, node ${process.version}`);
console.log(`History sizes: ${SIZES.map((size) => `${size} messages ≈ ${historyTokens[size]} tokens`).join('; ')}.`);
console.log(
  'Floors: warm in-process = JSON round trip of the body (string → object → string); warm HTTP = the same payload posted to a bare node:http echo server (parse + re-serialise), call by call; cold = raw js-tiktoken encode of every message text (encoder loaded) + the JSON round trip.',
);
console.log(
  '"cold": unseen messages, fresh token cache (the generator reuses its vocabulary, so per-word tokenizer memos are warm, as in a long-running server); "cold, new words": every word of 4+ letters made unique (worst case for such memos).\n',
);
const verdicts: string[] = [];
console.log(
  markdownTable(
    ['messages', 'run', 'path', 'median', 'p95', 'floor median', 'ratio (median)', 'target', 'verdict'],
    rows.map((row) => {
      const latency = summarize(row.runs);
      const floor = summarize(row.floors);
      const ratio = latency.median / floor.median;
      const limit = row.mode !== 'warm' ? COLD_TARGET : row.path === 'HTTP' ? REAL_HTTP_TARGET : WARM_TARGET;
      const verdict = ratio <= limit ? 'PASS' : 'MISS';
      verdicts.push(
        `${verdict}  ${row.path} ${row.mode} ${row.size} messages: ${ratio.toFixed(2)}× floor (target ≤ ${limit}×)`,
      );
      return [
        String(row.size),
        row.mode,
        row.path,
        formatMs(latency.median),
        formatMs(latency.p95),
        formatMs(floor.median),
        `${ratio.toFixed(2)}×`,
        `≤ ${limit}×`,
        verdict,
      ];
    }),
  ),
);
console.log('');
if (!http) console.log(`HTTP: not measured (server not ready: ${'reason' in target ? target.reason : 'unknown'})`);
else if (!httpTrimmed)
  console.log(
    'NOTE: the HTTP filter did not trim the cold requests; the valves file (max_tokens) was probably not applied.',
  );
for (const line of verdicts) console.log(line);

const realTokens = counter.prompt(realTurn(REAL_RUNS).next);
console.log(
  `\n## A real conversation, warm — LoCoMo ${real.sampleId}, ${realTurn(REAL_RUNS).next.length} messages ≈ ${realTokens} tokens, budget ${BUDGET}, ${REAL_RUNS} turns\n`,
);
console.log(
  'In process: parse the body + plan + serialise what is sent, vs JSON round trip of the body. HTTP: the context inlet (auth, flags, valves, plan, response) vs a bare node:http server that parses and re-serialises the same payload, alternately, call by call, same client.\n',
);
const realRows: Array<[string, number[], number[], number]> = [
  ['in-process', realInProcess, realJson, REAL_IN_PROCESS_TARGET],
  ...(http ? [['HTTP', realHttp, realEcho, REAL_HTTP_TARGET] as [string, number[], number[], number]] : []),
];
console.log(
  markdownTable(
    [
      'path',
      'median',
      'p95',
      'floor',
      'floor median',
      'ratio (median)',
      'ratio (median of per-call ratios)',
      'target',
      'verdict',
    ],
    realRows.map(([path, runs, floors, target]) => {
      const ratio = summarize(runs).median / summarize(floors).median;
      const perCall = summarize(runs.map((value, index) => value / floors[index]!)).median;
      return [
        path,
        formatMs(summarize(runs).median),
        formatMs(summarize(runs).p95),
        path === 'HTTP' ? 'echo server' : 'JSON round trip',
        formatMs(summarize(floors).median),
        `${ratio.toFixed(2)}×`,
        `${perCall.toFixed(2)}×`,
        `≤ ${target}×`,
        perCall <= target ? 'PASS' : 'MISS',
      ];
    }),
  ),
);
const RUNS_TARGET = 0.05;
if (httpOn && httpOff) {
  console.log(
    `\n## The run inspector's cost — the same ${REAL_RUNS} warm turns, the context inlet over HTTP with inspect=structure (the default) and inspect=off, alternately\n`,
  );
  console.log(
    `Two more servers, each sent the previous turn then the timed turn, alternately (10 ms pause around each timed call). Added latency: the median of per-turn ratios (on / off) − 1. Recording on the inlet: in this process alone, per turn, the record of the warm plan built and handed to the run store's buffer. The buffer is written every ${RUN_FLUSH_MS} ms, off the inlet, one batch in three store calls: its cost per run is measured to SQLite (the list of all runs full at 2,000) for a batch of one run (a quiet server) and for the ${busyBatch} runs that back-to-back inlets of this chat make in one interval (a busy server, where the write competes with inlets); total = on the inlet + the busy batch's write per run. Shares are of the inlet without recording.\n`,
  );
  const off = summarize(realOff).median;
  const added = summarize(realOn.map((value, index) => value / realOff[index]!)).median - 1;
  const work = summarize(realRecording).median;
  const share = (ms: number) => `${((ms / off) * 100).toFixed(1)} %`;
  const verdict = (ms: number) => (ms / off <= RUNS_TARGET ? 'PASS' : 'MISS');
  console.log(
    markdownTable(
      ['what', 'median', 'p95', 'share of the inlet without', 'target', 'verdict'],
      [
        ['inlet, inspect=off', formatMs(off), formatMs(summarize(realOff).p95), '—', '', ''],
        [
          'inlet, inspect=structure',
          formatMs(summarize(realOn).median),
          formatMs(summarize(realOn).p95),
          `${(added * 100).toFixed(1)} %`,
          `≤ ${RUNS_TARGET * 100} %`,
          added <= RUNS_TARGET ? 'PASS' : 'MISS',
        ],
        [
          'recording on the inlet (build + buffer)',
          formatMs(work),
          formatMs(summarize(realRecording).p95),
          share(work),
          `≤ ${RUNS_TARGET * 100} %`,
          verdict(work),
        ],
        ['buffer write per run, batch of 1 (off the inlet)', formatMs(writeAlone), '', share(writeAlone), '', ''],
        [`buffer write per run, batch of ${busyBatch}`, formatMs(writeBusy), '', share(writeBusy), '', ''],
        [
          `recording total per run (busy: on the inlet + batch of ${busyBatch})`,
          formatMs(work + writeBusy),
          '',
          share(work + writeBusy),
          `≤ ${RUNS_TARGET * 100} %`,
          verdict(work + writeBusy),
        ],
        [
          'warm plan alone (in process)',
          formatMs(summarize(realPlan).median),
          formatMs(summarize(realPlan).p95),
          `recording on the inlet = ${((work / summarize(realPlan).median) * 100).toFixed(1)} % of it`,
          '',
          '',
        ],
      ],
    ),
  );
}
console.log(`\n(${((performance.now() - started) / 1000).toFixed(1)} s)`);
