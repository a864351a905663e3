/**
 * The panel's "Jobs" section: the newest jobs of `--async` tools, with their
 * status, progress, age and executor (the `jobs` message; see protocol.ts).
 */
import { IJob } from './protocol';

function age(seconds: number): string {
  if (seconds < 60) {
    return `${Math.max(0, Math.round(seconds))}s`;
  }
  if (seconds < 3600) {
    return `${Math.round(seconds / 60)}m`;
  }
  if (seconds < 86400) {
    return `${(seconds / 3600).toFixed(1)}h`;
  }
  return `${(seconds / 86400).toFixed(1)}d`;
}

function cell(text: string, cls: string): HTMLElement {
  const node = document.createElement('span');
  node.className = cls;
  node.textContent = text;
  return node;
}

/** Renders the jobs into its own `node`; redrawn only when a `jobs` message arrives. */
export class JobsSection {
  readonly node: HTMLElement;

  constructor() {
    this.node = document.createElement('div');
    this.node.className = 'jp-nanohub-mcp-section jp-nanohub-mcp-jobs';
    this.node.style.display = 'none';
  }

  /** Show `jobs` (newest first); the section hides while there are none. */
  update(jobs: IJob[]): void {
    this._jobs = jobs;
    this.render();
  }

  /** Redraw (also to refresh the ages), or hide when `visible` is false. */
  render(visible = true): void {
    if (!visible || !this._jobs.length) {
      this.node.style.display = 'none';
      return;
    }
    this.node.style.display = '';
    const title = document.createElement('div');
    title.className = 'jp-nanohub-mcp-title';
    title.append(cell('Jobs ', ''), cell(String(this._jobs.length), 'jp-nanohub-mcp-count'));
    const list = document.createElement('ol');
    list.className = 'jp-nanohub-mcp-joblist';
    const now = Date.now() / 1000;
    for (const job of this._jobs) {
      list.append(this._row(job, now));
    }
    this.node.replaceChildren(title, list);
  }

  private _row(job: IJob, now: number): HTMLElement {
    const row = document.createElement('li');
    row.className = `jp-nanohub-mcp-job jp-mod-${job.status}`;
    row.dataset.jobId = job.id;
    row.title = job.status_message ?? '';
    const line = document.createElement('div');
    line.className = 'jp-nanohub-mcp-callline';
    line.append(
      cell(job.tool, 'jp-nanohub-mcp-what'),
      cell(job.status, 'jp-nanohub-mcp-jobstatus'),
      cell(age(now - job.created), 'jp-nanohub-mcp-duration')
    );
    const meta = document.createElement('div');
    meta.className = 'jp-nanohub-mcp-callmeta';
    meta.textContent = `${job.executor ?? 'threads'} · ${job.id.slice(0, 8)}`;
    row.append(line, meta);
    if (job.progress !== null && job.progress !== undefined) {
      const bar = document.createElement('progress');
      bar.className = 'jp-nanohub-mcp-jobprogress';
      if (job.progress_total) {
        bar.max = job.progress_total;
        bar.value = job.progress;
      }
      const total = job.progress_total ? `/${job.progress_total}` : '';
      const text = cell(`${job.progress}${total} ${job.progress_message ?? ''}`.trim(), 'jp-nanohub-mcp-jobtext');
      row.append(bar, text);
    }
    if (job.status === 'failed' && job.status_message) {
      row.append(cell(job.status_message, 'jp-nanohub-mcp-error'));
    }
    return row;
  }

  private _jobs: IJob[] = [];
}
