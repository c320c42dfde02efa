// Drive the real AI SDK v4 (npm `ai` 4.3 as `ai4`, 4.0 as `ai40`) with a scripted mock model and
// write the Message[] a v4 app persisted, both ways apps did it:
//
//   - <prefix>_<scenario>.client.json: what useChat held (the SDK's own callChatApi /
//     processChatResponse reading the data stream of toDataStreamResponse), user message first;
//   - <prefix>_<scenario>.server.json: what a route saved in onFinish with appendResponseMessages
//     (the v4 "chatbot message persistence" recipe);
//   - <prefix>_multistep.persisted.json (4.3): what useChat held, saved as `{role, content, parts}`
//     without ids, as apps that store only those columns persist it.
//
//   node generate_v4.mjs <out-dir> [ai4|ai40]
//
// Scenarios: multistep (reasoning with a signature, text, a streamed tool call and its result, a
// source, a second step), client_tool_waiting (a tool without execute: state "call"), client_tool
// (the client answers with updateToolCallResult and a second request continues the same message),
// truncated (the data stream cut while a tool call's input streams: state "partial-call"; client
// side only). ai@4.0 runs multistep and client_tool_waiting, without reasoning or sources.
// ai@4.0 messages have no `parts` (content + toolInvocations only); ai@4.3 has both.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const outDir = process.argv[2] ?? '.';
const sdkName = process.argv[3] ?? 'ai4';
const ai = await import(sdkName);
const { MockLanguageModelV1, simulateReadableStream } = await import(`${sdkName}/test`);
const { z } = await import('zod');
const { streamText, tool, appendResponseMessages } = ai;
const require = createRequire(import.meta.url);
const sdkDir = dirname(require.resolve(`${sdkName}/package.json`));
const ui = await import(pathToFileURL(require.resolve('@ai-sdk/ui-utils', { paths: [sdkDir] })).href);

mkdirSync(outDir, { recursive: true });
const T0 = Date.parse('2026-01-05T10:00:00Z');
let ids = 0;
const nextId = () => `id-${++ids}`;

function call(toolCallId, toolName, args, { streamed = false } = {}) {
  const json = JSON.stringify(args);
  const deltas = streamed
    ? [json.slice(0, 5), json.slice(5)].map((argsTextDelta) => ({ type: 'tool-call-delta', toolCallType: 'function', toolCallId, toolName, argsTextDelta }))
    : [];
  return [...deltas, { type: 'tool-call', toolCallType: 'function', toolCallId, toolName, args: json }];
}

const finish = (finishReason, promptTokens, completionTokens) => ({ type: 'finish', finishReason, usage: { promptTokens, completionTokens } });
const text = (...pieces) => pieces.map((textDelta) => ({ type: 'text-delta', textDelta }));

// ai@4.0 streams no reasoning and no sources: those parts are left out of its scripts
const version = require(`${sdkName}/package.json`).version;
const BASIC = new Set(['text-delta', 'tool-call', 'tool-call-delta', 'finish']);
const supported = (part) => !version.startsWith('4.0.') || BASIC.has(part.type);

/** A mock model answering its n-th call with the n-th scripted step. */
function scriptedModel(modelId, steps) {
  let n = 0;
  return new MockLanguageModelV1({
    modelId,
    doStream: async () => {
      const parts = steps[Math.min(n, steps.length - 1)].filter(supported);
      const meta = { type: 'response-metadata', id: `resp-${n + 1}`, modelId, timestamp: new Date(T0 + n * 1000) };
      n += 1;
      return { stream: simulateReadableStream({ chunks: [meta, ...parts] }), rawCall: { rawPrompt: null, rawSettings: {} } };
    },
  });
}

/** A route: streamText, its data stream, and the messages it would save in onFinish. */
async function route(model, tools, messages) {
  let saved;
  const result = streamText({
    model,
    tools,
    maxSteps: 3,
    toolCallStreaming: true,
    messages: ai.convertToCoreMessages(messages),
    experimental_generateMessageId: nextId,
    onFinish: ({ response }) => {
      saved = appendResponseMessages({ messages, responseMessages: response.messages, _internal: { currentDate: () => new Date(T0 + 5000) } });
    },
  });
  const body = await result.toDataStreamResponse({ sendReasoning: true, sendSources: true }).text();
  await result.consumeStream?.();
  return { body, saved: () => saved };
}

/** useChat's own assembly of the response (callChatApi → processChatResponse): the assistant
 * messages it ends with (4.3 folds the steps into one message; 4.0 makes one per step). */
async function client(body, lastMessage) {
  let finished;
  let updated = [];
  await ui.callChatApi({
    api: '/api/chat',
    body: {},
    streamProtocol: 'data',
    fetch: async () => new Response(body),
    onUpdate: (update) => {
      updated = Array.isArray(update) ? update : [update.message];
    },
    onFinish: (message) => {
      finished = message;
    },
    onResponse: undefined,
    onToolCall: undefined,
    generateId: nextId,
    lastMessage,
    restoreMessagesOnFailure: () => {},
    abortController: () => null,
    credentials: undefined,
    headers: undefined,
  });
  return structuredClone(version.startsWith('4.0.') || finished == null ? updated : [finished]);
}

function userMessage(content) {
  const message = { id: nextId(), createdAt: new Date(T0), role: 'user', content };
  return ui.fillMessageParts ? ui.fillMessageParts([message])[0] : message;
}

const prefix = sdkName;
function write(name, kind, messages) {
  writeFileSync(join(outDir, `${prefix}_${name}.${kind}.json`), JSON.stringify(messages, null, 1) + '\n');
}

const weather = tool({
  description: 'Weather for a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, tempC: 21, sky: 'sunny' }),
});

// --- multistep ----------------------------------------------------------------------------
async function multistep() {
  const model = scriptedModel('mock-model-1', [
    [
      { type: 'reasoning', textDelta: 'User wants weather; ' },
      { type: 'reasoning', textDelta: 'call the tool.' },
      { type: 'reasoning-signature', signature: 'sig-abc' },
      ...text('Let me check ', 'the weather.'),
      ...call('call-1', 'get_weather', { city: 'Paris' }, { streamed: true }),
      finish('tool-calls', 100, 40),
    ],
    [
      { type: 'source', source: { sourceType: 'url', id: 'src-1', url: 'https://weather.example/paris', title: 'Paris weather' } },
      ...text('It is sunny in Paris, ', '21°C.'),
      finish('stop', 160, 12),
    ],
  ]);
  const user = userMessage('Weather in Paris?');
  const { body, saved } = await route(model, { get_weather: weather }, [user]);
  const held = [user, ...(await client(body))];
  write('multistep', 'client', held);
  write('multistep', 'server', saved());
  // what an app keeps when it saves only the columns it renders from (no id, no createdAt)
  if (!version.startsWith('4.0.')) write('multistep', 'persisted', held.map(({ role, content, parts }) => ({ role, content, parts })));
}

// --- client_tool --------------------------------------------------------------------------
async function clientTool() {
  const confirm = tool({ description: 'Ask the user to confirm', parameters: z.object({ message: z.string() }) });
  const model = scriptedModel('mock-model-1', [
    [...text('I need your go-ahead.'), ...call('call-9', 'ask_confirmation', { message: 'Delete /tmp/x?' }), finish('tool-calls', 50, 10)],
    [...text('Done: /tmp/x is deleted.'), finish('stop', 70, 8)],
  ]);
  const user = userMessage('Delete /tmp/x');
  const first = await route(model, { ask_confirmation: confirm }, [user]);
  const waiting = (await client(first.body)).at(-1);
  write('client_tool_waiting', 'client', [user, waiting]);
  write('client_tool_waiting', 'server', first.saved());
  if (version.startsWith('4.0.')) return; // 4.0's client keeps no message to continue
  // the user confirms: useChat's addToolResult sets the result, then the chat is sent again
  const answered = structuredClone(waiting);
  const invocation = answered.toolInvocations.find((inv) => inv.toolCallId === 'call-9');
  Object.assign(invocation, { state: 'result', result: 'yes' });
  if (ui.updateToolCallResult) ui.updateToolCallResult({ messages: [user, answered], toolCallId: 'call-9', toolResult: 'yes' });
  const second = await route(model, { ask_confirmation: confirm }, [user, answered]);
  write('client_tool', 'client', [user, ...(await client(second.body, answered))]);
  write('client_tool', 'server', second.saved());
}

// --- truncated ----------------------------------------------------------------------------
async function truncated() {
  const model = scriptedModel('mock-model-1', [
    [...text('Looking it up.'), ...call('call-5', 'get_weather', { city: 'Oslo' }, { streamed: true }), finish('tool-calls', 30, 9)],
    [...text('Cold.'), finish('stop', 40, 2)],
  ]);
  const user = userMessage('Weather in Oslo?');
  const { body } = await route(model, { get_weather: weather }, [user]);
  const lines = body.split('\n');
  const cut = lines.findIndex((line) => line.startsWith('c:')) + 1; // after the first tool-call delta
  write('truncated', 'client', [user, ...(await client(lines.slice(0, cut).join('\n') + '\n'))]);
}

await multistep();
await clientTool();
if (!version.startsWith('4.0.')) await truncated(); // 4.0 streams no partial tool input
