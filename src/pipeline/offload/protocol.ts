/**
 * The messages between the main thread and an offload worker (src/offload/worker.ts). Plain data only:
 * they cross a thread boundary by structured clone.
 */
import type { JsonObject } from '../../json.js';
import type { ToolConfig, ToolDefaults } from '../../config/types.js';
import type { CallOutcome } from '../../retrofit/engine.js';
import type { ProfileShape } from '../../retrofit/profile.js';
import type { LiteralTrail } from '../../json-literals.js';
import type { SessionAnswer } from '../../protocol/modern.js';
import type { Demuxed } from './demux.js';
import type { Inspected } from './inspect.js';
import type { Era } from '../../protocol/era.js';
import type { NativeDecision } from '../../retrofit/native-memory.js';

/** One tools/call (or tasks/result) retrofit to run off the event loop. */
export interface OffloadJob {
  /** Correlates the answer with the job (unique per pool). */
  readonly job: number;
  /**
   * Stable id of the tool's policy object (one per ToolPolicy of one config generation): the worker compiles
   * the tool once and keeps it under this id.
   */
  readonly toolId: number;
  /**
   * Tool ids the worker must drop before it runs this job (the pool decides what a worker keeps: ./known.ts).
   */
  readonly forget?: readonly number[];
  /** Sent when the worker does not hold `toolId` (first use, or after a forget); the worker compiles them (compileTool). */
  readonly compile?: { readonly config: ToolConfig; readonly defaults: ToolDefaults };
  readonly tool: string;
  readonly revision: string;
  /** The client's profile, when it changes what the client gets. */
  readonly profile?: ProfileShape;
  /** The upstream's `result` object (or, instead, `message`). */
  readonly result?: JsonObject;
  /** With `result`: its inexact number literals, written back where the retrofit leaves them (src/json-literals.ts). */
  readonly literals?: LiteralTrail;
  /**
   * The whole response as the upstream sent it, not yet parsed (UTF-8 bytes or text), and the id it is
   * believed to carry: the worker parses it, and checks that it is a response with that id and a result.
   */
  readonly message?: { readonly data: Uint8Array | string; readonly id: string | number };
  /**
   * With `message`: the client may get the upstream's answer as if the tool had no configured schema (a shadow
   * or unseen mode, src/pipeline/rewrite.ts modeOf), which the main thread decides: the reply carries the
   * result's miniature (and, traced with capture, its text: Traced.sourceText). Rewritten bytes are those the
   * main thread made of the message parsed: the result last when it is final and its text is over `spliceOver`
   * (-1: any; a worker's result spliced in: ./splice.ts), else the members in their order (serialised whole).
   */
  readonly asIfUnconfigured?: { readonly spliceOver: number };
  /** The job runs under a deadline: the worker says when the retrofit itself starts (after compiling). */
  readonly timed?: true;
  /** The request is traced: the reply carries what its span records of the result (see Traced). */
  readonly trace?: TraceRequest;
}

/** What a traced job asks for: `capture`, the delivered result's text too (content capture is on). */
export interface TraceRequest {
  readonly capture: boolean;
}

/**
 * What the span of a traced request records of a result only the worker held parsed, as the inline path records
 * it (src/pipeline/rewrite.ts callInline): whether the upstream's result was a tool error, the text the
 * retrofit read, the delivered result's JSON size and, with capture, its text (src/telemetry/content.ts).
 */
export interface Traced {
  readonly toolError: boolean;
  readonly textBytes: number;
  readonly resultBytes: number;
  readonly text?: string;
  /** With capture, for an `asIfUnconfigured` job: the upstream's own result's text, for a client that gets it as it came. */
  readonly sourceText?: string;
  /**
   * For an `asIfUnconfigured` job whose result the main thread, holding it parsed, retrofits inline (not
   * spliced: see OffloadJob.asIfUnconfigured), so measures what it delivers: the upstream's result's JSON size.
   */
  readonly sourceBytes?: number;
}

/**
 * A large 2026-07-28 answer to reshape for a client of a session revision (src/protocol/modern.ts
 * sessionAnswer), parsed and serialised here instead of on the event loop (src/upstream/modern-link.ts).
 */
export interface ReshapeJob {
  readonly job: number;
  readonly reshape: { readonly data: Uint8Array | string; readonly clientId: string | number };
}

/**
 * A large message from an upstream that nothing will rewrite, inspected instead of parsed on the event loop
 * (./inspect.ts; src/session/inbound.ts).
 */
export interface InspectJob {
  readonly job: number;
  readonly inspect: { readonly data: Uint8Array | string };
}

/**
 * A large answer of a tool without a configured schema whose own structuredContent must change for the client
 * (its revision or profile): parsed, projected and serialised here instead of on the event loop. The worker
 * needs what the main thread's NativeMemory learnt of the tool from tools/list, sent along.
 */
export interface NativeJob {
  readonly job: number;
  readonly native: {
    readonly data: Uint8Array | string;
    readonly id: string | number;
    readonly tool: string;
    readonly revision: string;
    readonly profile?: ProfileShape;
    /** What each era's tools/list taught of the tool's declared schema (src/retrofit/native-memory.ts). */
    readonly decisions: readonly (readonly [Era, NativeDecision])[];
    /** The config's `defaults:` (legacyRoots decides a non-object value's projection). */
    readonly defaults: ToolDefaults;
    /** As OffloadJob.trace. */
    readonly trace?: TraceRequest;
  };
}

/** A long line of a shared stdio child that is not an answer, sorted out for routing (./demux.ts). */
export interface DemuxJob {
  readonly job: number;
  readonly demux: { readonly data: Uint8Array | string };
}

/**
 * What a reshape gives back: sessionAnswer's verdict, the answer as UTF-8 bytes (in shared memory: passed on,
 * never copied); `deep`: nested past MAX_DEPTH.
 */
export type Reshaped<B = Uint8Array> = Exclude<SessionAnswer, { kind: 'answer' }> | { readonly kind: 'answer'; readonly bytes: B } | { readonly kind: 'deep' };

/** The worker's answer to one job. */
export type OffloadReply =
  /**
   * `bytes`: the rewritten result serialised (UTF-8 JSON, its buffer transferred, not copied); absent when
   * the engine left the result as it was.
   */
  | {
      readonly job: number;
      readonly ok: true;
      readonly bytes?: Uint8Array;
      readonly outcome?: CallOutcome;
      /** For a `message` or native job: the response without its result's bulk (id, and result.task if any), for bookkeeping. */
      readonly stub?: JsonObject;
      /** For a `message` or native job: it is not a response with that id and a result object; nothing was done. */
      readonly mismatch?: true;
      /** For an `asIfUnconfigured` job: the upstream's result in miniature (./inspect.ts resultStub). */
      readonly miniature?: JsonObject;
      /** For a traced tool job that ran the engine. */
      readonly traced?: Traced;
      /** For a reshape job. */
      readonly reshaped?: Reshaped;
      /** For an inspect job. */
      readonly inspected?: Inspected;
      /** For a demux job (its bytes in shared memory). */
      readonly demuxed?: Demuxed;
    }
  | { readonly job: number; readonly ok: false; readonly error: string }
  /** A timed job's retrofit starts now (its deadline counts from here). */
  | { readonly job: number; readonly running: true; readonly ok?: undefined };

/** The first message a worker posts once it has loaded the engine. */
export const READY = 'ready';
