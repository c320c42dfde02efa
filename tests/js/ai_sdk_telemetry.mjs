// The AI SDK's generateText with a tool, against a scripted model (ai/test's MockLanguageModelV3,
// no network), telemetry on, spans kept in memory and written as JSON: the ReadableSpan objects'
// fields, as openinference-vercel's test fixtures keep the SDK's spans (tests/fixtures/real/otel).
// A context manager links the spans into one trace (ai.generateText → doGenerate, ai.toolCall).
//
//   node tests/js/ai_sdk_telemetry.mjs tests/fixtures/otel/ai_sdk_v6_generate_text_tool_call.json
//
// Needs, beside package.json's `ai` (6.0.326 made the fixture): @opentelemetry/api,
// @opentelemetry/sdk-trace-base@2, @opentelemetry/context-async-hooks@2. Ids and times differ per run.
import { generateText, tool, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
import { writeFileSync } from 'node:fs';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('ai');
const usage = (i, o) => ({ inputTokens: { total: i, noCache: i, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: o, text: o, reasoning: 0 } });
let step = 0;
const model = new MockLanguageModelV3({
  provider: 'scripted', modelId: 'scripted-1',
  doGenerate: async () => {
    step += 1;
    if (step === 1) {
      return { content: [{ type: 'text', text: 'Let me look that up.' }, { type: 'tool-call', toolCallId: 'call_weather_1', toolName: 'weather', input: JSON.stringify({ city: 'Lisbon' }) }],
               finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(40, 12), warnings: [] };
    }
    return { content: [{ type: 'text', text: 'It is 21 degrees and sunny in Lisbon.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(71, 11), warnings: [] };
  },
});
const result = await generateText({
  model, system: 'You answer weather questions.', prompt: 'What is the weather in Lisbon?',
  tools: { weather: tool({ description: 'The weather in a city', inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => ({ city, celsius: 21, sky: 'sunny' }) }) },
  stopWhen: stepCountIs(3),
  experimental_telemetry: { isEnabled: true, functionId: 'weather-agent', tracer },
});
const spans = exporter.getFinishedSpans().map(s => ({
  name: s.name, spanContext: s.spanContext(), parentSpanContext: s.parentSpanContext, attributes: s.attributes,
  status: s.status, startTime: s.startTime, endTime: s.endTime, events: s.events,
}));
writeFileSync(process.argv[2], JSON.stringify(spans, null, 2) + '\n');
console.log(result.text, spans.length);
