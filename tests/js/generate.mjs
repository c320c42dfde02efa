// Drive the real npm `ai` package (v6 as `ai`, v7 as `ai7`) with a scripted mock model and
// write, for each scenario, the raw UI message stream (SSE body of createUIMessageStreamResponse)
// and the UIMessage[] the AI SDK's own readUIMessageStream builds from that very SSE text.
//
//   node generate.mjs <out-dir> [ai|ai7]
//
// Scenarios: multistep (reasoning, text, tool input streaming, a tool that throws, a second step,
// usage/model/createdAt in message metadata), approval (needsApproval -> approval requests; a
// second request with one approval denied and one approved, streamed onto the same message),
// agents (data-agent parts naming two agents, a transient data part, a data part updated in
// place, sources and a model-generated file), input_error (invalid tool input), stream_error
// (the model stream fails mid-way).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const outDir = process.argv[2] ?? '.';
const sdkName = process.argv[3] ?? 'ai';
const ai = await import(sdkName);
const { MockLanguageModelV3 } = await import(`${sdkName}/test`);
const { z } = await import('zod');
const {
  streamText, stepCountIs, tool, createUIMessageStream, createUIMessageStreamResponse,
  readUIMessageStream, convertToModelMessages, simulateReadableStream,
} = ai;

mkdirSync(outDir, { recursive: true });
const prefix = sdkName === 'ai' ? 'ai6' : sdkName;
const T0 = Date.parse('2026-01-05T10:00:00Z');

function usage(input, output, { cacheRead = 0, reasoning = 0 } = {}) {
  return {
    inputTokens: { total: input, noCache: input - cacheRead, cacheRead, cacheWrite: 0 },
    outputTokens: { total: output, text: output - reasoning, reasoning },
  };
}

function finish(reason, u) {
  return { type: 'finish', finishReason: { unified: reason, raw: reason }, usage: u };
}

function text(id, ...pieces) {
  return [{ type: 'text-start', id }, ...pieces.map((delta) => ({ type: 'text-delta', id, delta })), { type: 'text-end', id }];
}

function reasoning(id, signature, ...pieces) {
  return [
    { type: 'reasoning-start', id },
    ...pieces.map((delta) => ({ type: 'reasoning-delta', id, delta })),
    { type: 'reasoning-end', id, providerMetadata: { anthropic: { signature } } },
  ];
}

function toolCall(toolCallId, toolName, input, { streamed = false } = {}) {
  const json = JSON.stringify(input);
  const streaming = streamed
    ? [
        { type: 'tool-input-start', id: toolCallId, toolName },
        { type: 'tool-input-delta', id: toolCallId, delta: json.slice(0, 5) },
        { type: 'tool-input-delta', id: toolCallId, delta: json.slice(5) },
        { type: 'tool-input-end', id: toolCallId },
      ]
    : [];
  return [...streaming, { type: 'tool-call', toolCallId, toolName, input: json }];
}

/** A mock model that answers its n-th call with the n-th scripted step. */
function scriptedModel(modelId, steps) {
  let call = 0;
  return new MockLanguageModelV3({
    modelId,
    doStream: async () => {
      const parts = steps[Math.min(call, steps.length - 1)];
      const meta = { type: 'response-metadata', id: `resp-${call + 1}`, modelId, timestamp: new Date(T0 + call * 1000) };
      call += 1;
      return { stream: simulateReadableStream({ chunks: [{ type: 'stream-start', warnings: [] }, meta, ...parts] }) };
    },
  });
}

function metadataFor(model, createdAt, extra = {}) {
  return ({ part }) => {
    if (part.type === 'start') return { createdAt, model, ...extra };
    if (part.type === 'finish') return { totalUsage: part.totalUsage, finishReason: part.finishReason };
    return undefined;
  };
}

async function sseOf(stream) {
  return await createUIMessageStreamResponse({ stream }).text();
}

/** The AI SDK's own client-side accumulation, fed from the SSE text itself. */
async function uiMessageFromSse(sse, message) {
  const chunks = sse
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice(6)));
  const stream = new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last;
  for await (const snapshot of readUIMessageStream({ message, stream, terminateOnError: false })) last = snapshot;
  return structuredClone(last);
}

function write(name, sse, messages) {
  writeFileSync(join(outDir, `${prefix}_${name}.sse`), sse);
  writeFileSync(join(outDir, `${prefix}_${name}.uimessages.json`), JSON.stringify(messages, null, 1) + '\n');
}

function userMessage(id, content) {
  return { id, role: 'user', parts: [{ type: 'text', text: content }] };
}

const onError = (error) => `ERR: ${error instanceof Error ? error.message : String(error)}`;

// --- multistep ----------------------------------------------------------------------------
async function multistep() {
  const model = scriptedModel('mock-model-1', [
    [
      ...reasoning('r1', 'sig-abc', 'User wants weather; ', 'call the tool.'),
      ...text('t1', 'Let me check ', 'the weather.'),
      ...toolCall('call-1', 'get_weather', { city: 'Paris' }, { streamed: true }),
      ...toolCall('call-2', 'broken_tool', {}),
      finish('tool-calls', usage(100, 40, { cacheRead: 20, reasoning: 10 })),
    ],
    [...text('t2', 'It is sunny in Paris, ', '21°C.'), finish('stop', usage(160, 12))],
  ]);
  const tools = {
    get_weather: tool({
      description: 'Weather for a city',
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => ({ city, tempC: 21, sky: 'sunny' }),
    }),
    broken_tool: tool({
      description: 'Always fails',
      inputSchema: z.object({}),
      execute: async () => {
        throw new Error('sensor offline');
      },
    }),
  };
  const user = userMessage('u1', 'Weather in Paris?');
  const result = streamText({ model, messages: await convertToModelMessages([user]), tools, stopWhen: stepCountIs(5) });
  const sse = await sseOf(
    result.toUIMessageStream({
      sendReasoning: true,
      generateMessageId: () => 'a1',
      messageMetadata: metadataFor('mock-model-1', T0),
      onError,
    }),
  );
  write('multistep', sse, [user, await uiMessageFromSse(sse)]);
}

// --- approval (two requests) ----------------------------------------------------------------
async function approval() {
  const deleteFile = tool({
    description: 'Delete a file',
    inputSchema: z.object({ path: z.string() }),
    needsApproval: true,
    execute: async ({ path }) => ({ deleted: path }),
  });
  const tools = { delete_file: deleteFile };
  const user = userMessage('u1', 'delete /tmp/x and /tmp/y');
  const first = streamText({
    model: scriptedModel('mock-model-1', [
      [
        ...text('t1', 'I will delete both files.'),
        ...toolCall('call-3', 'delete_file', { path: '/tmp/x' }),
        ...toolCall('call-4', 'delete_file', { path: '/tmp/y' }),
        finish('tool-calls', usage(50, 20)),
      ],
    ]),
    messages: await convertToModelMessages([user]),
    tools,
  });
  const sse1 = await sseOf(
    first.toUIMessageStream({ generateMessageId: () => 'a1', messageMetadata: metadataFor('mock-model-1', T0), onError }),
  );
  const assistant1 = await uiMessageFromSse(sse1);
  // the user answers both requests in the UI: deny /tmp/x, approve /tmp/y
  const answered = structuredClone(assistant1);
  for (const part of answered.parts) {
    if (part.type === 'tool-delete_file' && part.state === 'approval-requested') {
      const approved = part.input.path === '/tmp/y';
      part.state = 'approval-responded';
      part.approval = { id: part.approval.id, approved, ...(approved ? {} : { reason: 'not allowed' }) };
    }
  }
  const history = [user, answered];
  // serialised now: readUIMessageStream below extends `answered` in place
  const requestBody = JSON.stringify({ id: 'chat-1', trigger: 'submit-message', messages: history }, null, 1) + '\n';
  const second = streamText({
    model: scriptedModel('mock-model-1', [[...text('t3', 'Deleted /tmp/y, ', 'not /tmp/x.'), finish('stop', usage(90, 8))]]),
    messages: await convertToModelMessages(history),
    tools,
  });
  const sse2 = await sseOf(
    second.toUIMessageStream({ originalMessages: history, messageMetadata: metadataFor('mock-model-1', T0 + 60_000), onError }),
  );
  const assistant2 = await uiMessageFromSse(sse2, answered);
  // the two HTTP responses of the same chat, one after the other
  write('approval', sse1 + sse2, [user, assistant2]);
  // what the second request carried: the history with the user's answers, and its response alone
  writeFileSync(join(outDir, `${prefix}_approval.request.json`), requestBody);
  writeFileSync(join(outDir, `${prefix}_approval.response2.sse`), sse2);
}

// --- agents: data parts name who speaks ------------------------------------------------------
async function agents() {
  const planner = scriptedModel('mock-planner', [
    [...reasoning('r1', 'sig-plan', 'Need facts first.'), ...text('t1', 'I will ask the researcher.'), finish('stop', usage(30, 12, { reasoning: 4 }))],
  ]);
  const researcher = scriptedModel('mock-researcher', [
    [
      ...toolCall('call-s1', 'search', { query: 'tallest tower in Paris' }, { streamed: true }),
      finish('tool-calls', usage(40, 10)),
    ],
    [
      { type: 'source', sourceType: 'url', id: 'src-1', url: 'https://example.com/eiffel', title: 'Eiffel Tower facts' },
      { type: 'source', sourceType: 'document', id: 'src-2', mediaType: 'application/pdf', title: 'Paris guide', filename: 'paris.pdf' },
      { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
      ...text('t2', 'The Eiffel Tower ', 'is 330 m tall.'),
      finish('stop', usage(70, 15)),
    ],
  ]);
  const tools = {
    search: tool({
      description: 'Web search',
      inputSchema: z.object({ query: z.string() }),
      execute: async ({ query }) => ({ query, hits: ['Eiffel Tower: 330 m'] }),
    }),
  };
  const user = userMessage('u1', 'How tall is the tallest tower in Paris?');
  const prompt = await convertToModelMessages([user]);
  const stream = createUIMessageStream({
    generateId: () => 'a1',
    onError,
    execute: async ({ writer }) => {
      // readUIMessageStream drops parts written before `start`, so the message starts first
      writer.write({ type: 'start', messageId: 'a1', messageMetadata: { createdAt: T0, model: 'mock-planner' } });
      writer.write({ type: 'data-agent', id: 'agent-planner', data: { name: 'Planner', role: 'coordinator' } });
      writer.write({ type: 'data-progress', id: 'progress', data: { done: 0, total: 2 } });
      const first = streamText({ model: planner, messages: prompt });
      for await (const chunk of first.toUIMessageStream({ sendReasoning: true, sendStart: false, sendFinish: false })) writer.write(chunk);
      writer.write({ type: 'data-progress', id: 'progress', data: { done: 1, total: 2 } });
      writer.write({ type: 'data-status', data: { text: 'handing over to Researcher' }, transient: true });
      writer.write({ type: 'data-agent', id: 'agent-researcher', data: { name: 'Researcher', role: 'worker' } });
      const secondRun = streamText({ model: researcher, messages: prompt, tools, stopWhen: stepCountIs(3) });
      for await (const chunk of secondRun.toUIMessageStream({
        sendStart: false,
        sendSources: true,
        messageMetadata: ({ part }) => (part.type === 'finish' ? { totalUsage: part.totalUsage, model: 'mock-researcher' } : undefined),
        onError,
      })) writer.write(chunk);
      writer.write({ type: 'data-progress', id: 'progress', data: { done: 2, total: 2 } });
    },
  });
  const sse = await sseOf(stream);
  write('agents', sse, [user, await uiMessageFromSse(sse)]);
}

// --- invalid tool input ----------------------------------------------------------------------
async function inputError() {
  const model = scriptedModel('mock-model-1', [
    [...toolCall('call-e', 'get_weather', { town: 7 }), finish('tool-calls', usage(20, 5))],
    [...text('t2', 'Sorry, I sent a bad request.'), finish('stop', usage(30, 6))],
  ]);
  const tools = {
    get_weather: tool({
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => ({ city, tempC: 21 }),
    }),
  };
  const user = userMessage('u1', 'Weather?');
  const result = streamText({ model, messages: await convertToModelMessages([user]), tools, stopWhen: stepCountIs(3) });
  const sse = await sseOf(result.toUIMessageStream({ generateMessageId: () => 'a1', onError }));
  write('input_error', sse, [user, await uiMessageFromSse(sse)]);
}

// --- the model stream fails part-way ---------------------------------------------------------
async function streamError() {
  const model = scriptedModel('mock-model-1', [
    [...text('t1', 'Starting the answer'), { type: 'error', error: new Error('upstream overloaded') }, finish('error', usage(10, 3))],
  ]);
  const user = userMessage('u1', 'Tell me a story');
  const result = streamText({ model, messages: await convertToModelMessages([user]), onError: () => {} });
  const sse = await sseOf(result.toUIMessageStream({ generateMessageId: () => 'a1', onError }));
  write('stream_error', sse, [user, await uiMessageFromSse(sse)]);
}

await multistep();
await approval();
await agents();
await inputError();
await streamError();
console.log(`wrote ${prefix}_* to ${outDir}`);
