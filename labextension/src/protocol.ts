/**
 * The messages exchanged with the kernel over the `nanohubmcp` comm.
 *
 * The kernel side is `nanohubmcp/jupyter/comm.py`; its module docstring is the
 * reference for these shapes. Keep both in step.
 */

/** Comm target name, registered by the kernel on `%load_ext nanohubmcp`. */
export const TARGET = 'nanohubmcp';

/** One transport endpoint under the server's public URL. */
export interface IEndpoint {
  label: string;
  url: string;
}

/** `{"type": "status"}`: whether the server runs, and where. */
export interface IStatus {
  type: 'status';
  /** False once the extension was unloaded: no other field is sent then. */
  loaded: boolean;
  name?: string;
  version?: string;
  running?: boolean;
  mode?: string;
  host?: string;
  port?: number | null;
  local_url?: string | null;
  public_url?: string | null;
  mcp_url?: string | null;
  /** True when the public URL is nanoHUB's proxy (weber) URL. */
  hub?: boolean;
  hub_reason?: string;
  /** Why replies may not stream through the public URL ("" when they do). */
  streaming?: string;
  endpoints?: IEndpoint[];
}

export interface ITool {
  name: string;
  title?: string | null;
  description: string;
  /** Where calls run: "pool", "kernel", "job" or "server". */
  runs: string;
}

export interface IResource {
  uri: string;
  name: string;
  description: string;
  template: boolean;
}

export interface IPrompt {
  name: string;
  description: string;
}

/** `{"type": "components"}`: everything registered on the server. */
export interface IComponents {
  type: 'components';
  tools: ITool[];
  resources: IResource[];
  prompts: IPrompt[];
}

/** One MCP request the server handled (or is handling: `ok` is null). */
export interface ICall {
  id: number;
  /** Start time, seconds since the epoch. */
  time: number;
  method: string;
  name?: string | null;
  session?: string | null;
  ok: boolean | null;
  error?: string | null;
  duration_ms?: number | null;
  /** The last progress the call reported (ctx.report_progress or a tqdm bar), if any. */
  progress?: number | null;
  total?: number | null;
  message?: string | null;
  /** The id of the call's provenance record, once it finished (null when none is kept). */
  record?: string | null;
}

/** `{"type": "provenance"}`: a call's provenance record (null when unknown or expired). */
export interface IProvenance {
  type: 'provenance';
  id: string | null;
  record: { [key: string]: unknown } | null;
}

/** `{"type": "calls"}`: the whole log (`reset`) or new and updated entries. */
export interface ICalls {
  type: 'calls';
  reset: boolean;
  capacity: number;
  /** Calls past tool_timeout whose functions still hold a worker thread. */
  stuck?: number;
  calls: ICall[];
}

/** One job of an `--async` tool (never its arguments or result). */
export interface IJob {
  id: string;
  tool: string;
  /** working | input_required | completed | failed | cancelled */
  status: string;
  status_message?: string | null;
  progress?: number | null;
  progress_total?: number | null;
  progress_message?: string | null;
  /** Creation time, seconds since the epoch. */
  created: number;
  /** threads | processes | dask | another executor's name */
  executor?: string | null;
}

/** `{"type": "jobs"}`: the newest jobs, newest first. */
export interface IJobs {
  type: 'jobs';
  jobs: IJob[];
}

/** Any message the kernel sends on the comm. */
export type KernelMessage = IStatus | IComponents | ICalls | IJobs | IProvenance;

/** Requests the panel sends. */
export type PanelRequest = { type: 'refresh' } | { type: 'clear' } | { type: 'provenance'; id: string };
