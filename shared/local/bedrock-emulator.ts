import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';

/**
 * A loopback stand-in for Amazon Bedrock Runtime's Converse operation, on the wire as the SDK client speaks
 * it: `POST /model/{modelId}/converse` with a JSON body, over cleartext HTTP/2 (the client's handler), answered
 * with the Converse response JSON, or an error as AWS JSON services send one (`x-amzn-errortype` and a
 * `message`). The official client reaches it through `AWS_ENDPOINT_URL_BEDROCK_RUNTIME` (or `endpoint`).
 *
 * What the "model" answers is scripted per request, so a test can make it answer well, badly (text instead
 * of the tool, input that breaks the schema), slowly, with an error, or as a model that obeys instructions
 * hidden in the page it was given. It listens on 127.0.0.1 only.
 */
export interface ConverseRequestBody {
  system?: { text: string }[];
  messages?: { role: string; content: { text?: string }[] }[];
  inferenceConfig?: Record<string, unknown>;
  toolConfig?: { tools?: { toolSpec?: { name: string; inputSchema?: { json?: unknown } } }[]; toolChoice?: { tool?: { name: string } } };
}

export interface ReceivedConverse {
  modelId: string;
  body: ConverseRequestBody;
  /** The user message's text. */
  userText: string;
  /** The forced tool's name, if any. */
  tool: string | undefined;
}

export type ScriptedAnswer =
  /** The model calls the forced tool with this input. */
  | { toolInput: unknown; stopReason?: string }
  /** The model answers with text and no tool call. */
  | { text: string; stopReason?: string }
  /** The service answers with an error (e.g. 429 ThrottlingException, 400 ValidationException). */
  | { status: number; errorType: string; message: string }
  /** The answer after a delay (a slow model). */
  | { delayMs: number; then: ScriptedAnswer };

export type ConverseScript = (request: ReceivedConverse) => ScriptedAnswer | Promise<ScriptedAnswer>;

export interface BedrockEmulator {
  url: string;
  received: ReceivedConverse[];
  /** Replace the script (tests switch it between cases). */
  script(next: ConverseScript): void;
  close(): Promise<void>;
}

const noScript: ConverseScript = () => ({ status: 400, errorType: 'ValidationException', message: 'The stand-in has no script for this request.' });

export async function startBedrockEmulator(script: ConverseScript = noScript): Promise<BedrockEmulator> {
  let current = script;
  const received: ReceivedConverse[] = [];
  const sessions = new Set<http2.ServerHttp2Session>();
  const timers = new Map<NodeJS.Timeout, () => void>();
  const server = http2.createServer();
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  server.on('stream', (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('error', () => undefined);
    stream.on('end', () => {
      void (async () => {
        const path = decodeURIComponent(String(headers[':path'] ?? ''));
        const match = /^\/model\/(.+)\/converse$/.exec(path);
        if (headers[':method'] !== 'POST' || !match) return respond(stream, 404, { message: `No operation at ${headers[':method']} ${path}` }, 'UnknownOperationException');
        let body: ConverseRequestBody;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ConverseRequestBody;
        } catch {
          return respond(stream, 400, { message: 'The request body is not JSON.' }, 'ValidationException');
        }
        const request: ReceivedConverse = {
          modelId: match[1]!,
          body,
          userText: (body.messages?.[0]?.content ?? []).map((c) => c.text ?? '').join(''),
          tool: body.toolConfig?.toolChoice?.tool?.name,
        };
        received.push(request);
        let answer = await current(request);
        while ('delayMs' in answer) {
          const { delayMs, then } = answer;
          await new Promise<void>((r) => {
            const timer = setTimeout(() => {
              timers.delete(timer);
              r();
            }, delayMs);
            timers.set(timer, r);
          });
          if (stream.closed || stream.destroyed) return;
          answer = then;
        }
        if ('status' in answer) return respond(stream, answer.status, { message: answer.message }, answer.errorType);
        const content = 'toolInput' in answer ? [{ toolUse: { toolUseId: `tooluse_${received.length}`, name: request.tool ?? 'tool', input: answer.toolInput } }] : [{ text: answer.text }];
        respond(stream, 200, {
          output: { message: { role: 'assistant', content } },
          stopReason: answer.stopReason ?? ('toolInput' in answer ? 'tool_use' : 'end_turn'),
          usage: { inputTokens: Math.ceil(request.userText.length / 4), outputTokens: 50, totalTokens: Math.ceil(request.userText.length / 4) + 50 },
          metrics: { latencyMs: 1 },
        });
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    script: (next) => {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const [timer, release] of timers) {
          clearTimeout(timer);
          release();
        }
        for (const s of sessions) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function respond(stream: http2.ServerHttp2Stream, status: number, body: unknown, errorType?: string): void {
  if (stream.closed || stream.destroyed) return;
  stream.respond({ ':status': status, 'content-type': 'application/json', ...(errorType ? { 'x-amzn-errortype': errorType } : {}) });
  stream.end(JSON.stringify(body));
}
