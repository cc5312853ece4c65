import path from 'node:path';
import { ProviderError, type AnswerChunk, type AnswerMessage, type AnswerProvider, type AnswerRequest } from '../../domain/answers/port.js';
import { generation } from './http.js';

/** Settings of createLlamaProvider. */
export interface LlamaProviderOptions {
  /** A GGUF model file. */
  modelPath: string;
  /**
   * Tokens one generation may hold, prompt and answer together. Default: as many as fit in
   * memory, at most 8192 and at most the context the model was trained with.
   */
  contextSize?: number;
  /** CPU threads per evaluation; default: the machine's math cores (node-llama-cpp's `cpuMathCores`). */
  threads?: number;
  /**
   * Generations that run at once, each on its own context sequence (each with its own
   * `contextSize` of memory); default 1. Further requests wait their turn in order.
   */
  parallel?: number;
}

/** The llama.cpp answer provider, with its model's lifecycle. */
export interface LlamaProvider extends AnswerProvider {
  /**
   * Loads the model unless it is loaded; `stream` does the same on its first call. For the
   * operator: rejects with an Error naming the file and the reason (`stream` rejects with a
   * client-safe ProviderError 503 instead); the next call tries again.
   */
  ready(): Promise<void>;
  /** Frees the model; generations still running fail with ProviderError 503. */
  close(): Promise<void>;
}

/**
 * An answer provider running a local GGUF model in-process with llama.cpp (node-llama-cpp),
 * on the CPU, with node-llama-cpp's prebuilt binary only: it never builds llama.cpp or
 * downloads anything. `provider` is 'llama.cpp', `model` the file's base name.
 *
 * The model and one context are loaded once (by `ready()` or the first `stream`), and the
 * prompt is laid out with the chat wrapper node-llama-cpp resolves from the GGUF's chat
 * template (its generic wrapper when the template is missing or unknown). System messages
 * are joined into one system turn; user and assistant messages become the chat's turns.
 *
 * `end.reason` is `length` when `maxTokens` stopped the answer, `stop` when the model ended
 * it. Usage: `promptTokens` is the length of the prompt in the context when the first token
 * was generated (a prefix reused from the previous generation on that sequence counts too),
 * `completionTokens` the tokens generated for the answer.
 */
export function createLlamaProvider(options: LlamaProviderOptions): LlamaProvider {
  const parallel = options.parallel ?? 1;
  let loading: Promise<Loaded> | undefined;

  const load = (): Promise<Loaded> => {
    loading ??= open(options, parallel).catch((error: unknown) => {
      // Forget the failure, so a model file fixed or replaced later is picked up.
      loading = undefined;
      throw new Error(`Could not load the GGUF model ${options.modelPath}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    });
    return loading;
  };

  return {
    provider: 'llama.cpp',
    model: path.basename(options.modelPath),
    async ready() {
      await load();
    },
    async close() {
      const loaded = loading;
      loading = undefined;
      // A failed load has nothing to free.
      await loaded?.then((model) => model.model.dispose(), () => undefined);
    },
    async *stream(request, signal) {
      signal.throwIfAborted();
      const unavailable = (error: unknown) => {
        throw new ProviderError('The local language model could not be loaded.', 503, { cause: error });
      };
      const loaded = await abortable(load().catch(unavailable), signal);
      const sequence = await loaded.sequences.acquire(signal);
      yield* generate(loaded, sequence, request, signal);
    },
  };
}

/** The model, ready to answer. */
interface Loaded {
  model: LlamaModel;
  LlamaChat: NodeLlamaCpp['LlamaChat'];
  chatWrapper: ChatWrapper;
  sequences: SequencePool;
}

// node-llama-cpp is an optional dependency, imported only when LORE_LLM=llama: a variable
// specifier keeps `tsc` from resolving it, so an install without it still builds and starts.
const NODE_LLAMA_CPP = 'node-llama-cpp';

let backend: Promise<{ llamaCpp: NodeLlamaCpp; llama: Llama }> | undefined;

/** llama.cpp's backend, loaded once per process (as node-llama-cpp advises) for every model. */
function loadBackend(): Promise<{ llamaCpp: NodeLlamaCpp; llama: Llama }> {
  backend ??= (async () => {
    const llamaCpp = (await import(NODE_LLAMA_CPP)) as NodeLlamaCpp;
    // The prebuilt CPU binary or nothing: no GPU probing, no source build, no download.
    const llama = await llamaCpp.getLlama({ gpu: false, build: 'never', skipDownload: true, progressLogs: false });
    return { llamaCpp, llama };
  })().catch((error: unknown) => {
    backend = undefined;
    throw error;
  });
  return backend;
}

async function open(options: LlamaProviderOptions, parallel: number): Promise<Loaded> {
  const { llamaCpp, llama } = await loadBackend();
  const model = await llama.loadModel({ modelPath: options.modelPath });
  try {
    const context = await model.createContext({
      contextSize: options.contextSize ?? { max: 8192 },
      sequences: parallel,
      // node-llama-cpp's CPU default may exceed the cores; llama.cpp's threads spin-wait, so
      // more threads than cores slows every token down.
      threads: options.threads ?? llama.cpuMathCores,
    });
    const sequences = new SequencePool(Array.from({ length: parallel }, () => context.getSequence()));
    return { model, LlamaChat: llamaCpp.LlamaChat, chatWrapper: llamaCpp.resolveChatWrapper(model), sequences };
  } catch (error) {
    await model.dispose();
    throw error;
  }
}

const REASONS: Record<string, string> = { maxTokens: 'length', eogToken: 'stop', stopGenerationTrigger: 'stop', customStopTrigger: 'stop' };

/**
 * One generation on `sequence`, bridged from node-llama-cpp's callbacks to chunks. The
 * sequence goes back to the pool only once llama.cpp has stopped, so an aborted or
 * abandoned generation never overlaps the next one on the same sequence.
 */
async function* generate(loaded: Loaded, sequence: LlamaSequence, request: AnswerRequest, signal: AbortSignal): AsyncGenerator<AnswerChunk> {
  const { maxTokens, temperature } = generation(request);
  const pending: string[] = [];
  let outcome: { response: LlamaChatResponse; promptTokens: number } | { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const notify = () => wake?.();
  let promptTokens: number | undefined;
  let completionTokens = 0;

  // Stops llama.cpp when the caller aborts or stops reading early.
  const stop = new AbortController();
  const onAbort = () => {
    stop.abort(signal.reason);
    notify();
  };
  signal.addEventListener('abort', onAbort, { once: true });

  let chat: LlamaChat;
  try {
    chat = new loaded.LlamaChat({ contextSequence: sequence, chatWrapper: loaded.chatWrapper });
  } catch (error) {
    signal.removeEventListener('abort', onAbort);
    loaded.sequences.release(sequence);
    throw failed(error);
  }
  // Runs on its own; settling records the outcome and frees the sequence (it never rejects).
  void chat
    .generateResponse(history(request.messages), {
      maxTokens,
      temperature,
      signal: stop.signal,
      onToken(tokens) {
        // At the first release the context holds the prompt, then these tokens but the
        // newest (sampled, not evaluated yet).
        promptTokens ??= sequence.nextTokenIndex - (tokens.length - 1);
        completionTokens += tokens.length;
      },
      onTextChunk(text) {
        if (text === '') return;
        pending.push(text);
        notify();
      },
    })
    .then(
      (response) => {
        // Read before the sequence is freed; with no token released, it holds just the prompt.
        outcome = { response, promptTokens: promptTokens ?? sequence.nextTokenIndex };
      },
      (error: unknown) => {
        outcome = { error };
      },
    )
    .finally(() => {
      chat.dispose();
      loaded.sequences.release(sequence);
      notify();
    });

  try {
    for (;;) {
      if (signal.aborted) throw signal.reason;
      const delta = pending.shift();
      if (delta !== undefined) {
        yield { type: 'text', delta };
        continue;
      }
      if (outcome) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
    if ('error' in outcome) throw failed(outcome.error);
    const reason = REASONS[outcome.response.metadata.stopReason] ?? outcome.response.metadata.stopReason;
    yield { type: 'end', reason, usage: { promptTokens: outcome.promptTokens, completionTokens } };
  } finally {
    signal.removeEventListener('abort', onAbort);
    // Not awaited: the sequence is freed whenever llama.cpp stops.
    if (!outcome) stop.abort(signal.aborted ? signal.reason : new Error('The answer stream was closed.'));
  }
}

function failed(error: unknown): ProviderError {
  return new ProviderError('The local language model failed while answering.', 503, { cause: error });
}

/** Lore's messages as node-llama-cpp's chat history, ending with the model's turn to answer. */
function history(messages: AnswerMessage[]): ChatHistoryItem[] {
  const system = messages.filter((m) => m.role === 'system').map((m) => m.content);
  const items: ChatHistoryItem[] = system.length > 0 ? [{ type: 'system', text: system.join('\n\n') }] : [];
  for (const message of messages) {
    if (message.role === 'user') items.push({ type: 'user', text: message.content });
    else if (message.role === 'assistant') items.push({ type: 'model', response: [message.content] });
  }
  items.push({ type: 'model', response: [] });
  return items;
}

/** Resolves as `promise` does, or rejects with `signal.reason` as soon as `signal` aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * The context's sequences: one generation each at a time (a sequence holds one token
 * history), handed out in request order.
 */
class SequencePool {
  private readonly waiting: ((sequence: LlamaSequence) => void)[] = [];

  constructor(private readonly free: LlamaSequence[]) {}

  /** A free sequence, waiting for one if needed; rejects with `signal.reason` on abort. */
  acquire(signal: AbortSignal): Promise<LlamaSequence> {
    signal.throwIfAborted();
    const sequence = this.free.pop();
    if (sequence) return Promise.resolve(sequence);
    return new Promise((resolve, reject) => {
      const waiter = (next: LlamaSequence) => {
        signal.removeEventListener('abort', onAbort);
        resolve(next);
      };
      const onAbort = () => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  release(sequence: LlamaSequence): void {
    const next = this.waiting.shift();
    if (next) next(sequence);
    else this.free.push(sequence);
  }
}

// The part of node-llama-cpp's API used here (3.x), typed locally: see NODE_LLAMA_CPP.

interface NodeLlamaCpp {
  getLlama(options: { gpu: false; build: 'never'; skipDownload: true; progressLogs: false }): Promise<Llama>;
  /** The wrapper matching the model's chat template; node-llama-cpp's generic one otherwise. */
  resolveChatWrapper(model: LlamaModel): ChatWrapper;
  LlamaChat: new (options: { contextSequence: LlamaSequence; chatWrapper: ChatWrapper }) => LlamaChat;
}

interface Llama {
  readonly cpuMathCores: number;
  loadModel(options: { modelPath: string }): Promise<LlamaModel>;
}

interface LlamaModel {
  createContext(options: { contextSize: number | { max: number }; sequences: number; threads: number }): Promise<LlamaContext>;
  /** Frees the model and its contexts. */
  dispose(): Promise<void>;
}

interface LlamaContext {
  getSequence(): LlamaSequence;
}

interface LlamaSequence {
  /** Tokens in the sequence's context: where the next evaluated token goes. */
  readonly nextTokenIndex: number;
}

/** Opaque: node-llama-cpp's ChatWrapper instance. */
type ChatWrapper = object;

type ChatHistoryItem = { type: 'system' | 'user'; text: string } | { type: 'model'; response: string[] };

interface LlamaChatResponse {
  metadata: { stopReason: string };
}

interface LlamaChat {
  /** Rejects with `signal.reason` when `signal` aborts. */
  generateResponse(
    history: ChatHistoryItem[],
    options: {
      maxTokens: number;
      temperature: number;
      signal: AbortSignal;
      onToken(tokens: readonly number[]): void;
      onTextChunk(text: string): void;
    },
  ): Promise<LlamaChatResponse>;
  /** Leaves the sequence to its owner. */
  dispose(): void;
}
