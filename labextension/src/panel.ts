/**
 * The side panel: the followed notebook's MCP server, its public URL, its
 * tools, resources and prompts, and a live log of the calls it serves.
 *
 * Plain DOM (no React): three sections, each redrawn only when its own message
 * arrives, so an open "Endpoints" fold or the log's scroll position survive.
 */
import { Clipboard } from '@jupyterlab/apputils';
import { NotebookPanel } from '@jupyterlab/notebook';
import { refreshIcon } from '@jupyterlab/ui-components';
import { Widget } from '@lumino/widgets';

import { JobsSection } from './jobs';
import { KernelLink, LinkState } from './link';
import { ICall, IComponents, IStatus, KernelMessage } from './protocol';

/** DOM helper: `el('div', {class: 'x'}, child, 'text')`. */
function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string | null | undefined | false)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined && child !== false) {
      node.append(child);
    }
  }
  return node;
}

function clock(seconds: number): string {
  const d = new Date(seconds * 1000);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) {
    return '…';
  }
  if (ms < 10) {
    return `${ms.toFixed(1)} ms`;
  }
  if (ms < 10000) {
    return `${Math.round(ms)} ms`;
  }
  return `${(ms / 1000).toFixed(1)} s`;
}

const HINTS: Record<LinkState, string> = {
  'no-notebook': 'Open a notebook to see its MCP server.',
  'no-kernel': 'This notebook has no running kernel.',
  connecting: 'Connecting to the kernel…',
  'not-loaded':
    'No MCP server in this kernel yet. Run %load_ext nanohubmcp and define a tool in a %%mcp_tool cell, ' +
    'or call server.run() on an MCPServer built in a cell.',
  restarting: 'The kernel is restarting…',
  connected: ''
};

export class MCPPanel extends Widget {
  constructor() {
    super();
    this.addClass('jp-nanohub-mcp');
    this._header = el('div', { class: 'jp-nanohub-mcp-header' });
    this._server = el('div', { class: 'jp-nanohub-mcp-section jp-nanohub-mcp-server' });
    this._components = el('div', { class: 'jp-nanohub-mcp-section jp-nanohub-mcp-components' });
    this._callsList = el('ol', { class: 'jp-nanohub-mcp-calls' });
    this._callsCount = el('span', { class: 'jp-nanohub-mcp-count' });
    const clear = el('button', { class: 'jp-nanohub-mcp-button', title: 'Clear the call log' }, 'Clear');
    clear.addEventListener('click', () => this._link.send({ type: 'clear' }));
    this._log = el(
      'div',
      { class: 'jp-nanohub-mcp-section jp-nanohub-mcp-log' },
      el('div', { class: 'jp-nanohub-mcp-title' }, el('span', {}, 'Calls '), this._callsCount, clear),
      this._callsList
    );
    this._inFlight = el('div', { class: 'jp-nanohub-mcp-section jp-nanohub-mcp-inflight' });
    this.node.append(this._header, this._server, this._components, this._inFlight, this._jobs.node, this._log);
    this._link.stateChanged.connect(() => this._render(), this);
    this._link.messageReceived.connect((_, message) => this._receive(message), this);
    this._render();
  }

  /** The notebook whose kernel the panel shows (null: none). */
  follow(notebook: NotebookPanel | null): void {
    this._notebook = notebook;
    this._link.attach(notebook ? notebook.sessionContext : null);
    this._reset();
    this._render();
  }

  /** Ask the kernel for a full snapshot again. */
  refresh(): void {
    if (!this._link.send({ type: 'refresh' })) {
      this._link.retry(); // not connected: perhaps nanohubmcp was loaded by code the panel did not see
    }
  }

  dispose(): void {
    this._link.dispose();
    super.dispose();
  }

  private _reset(): void {
    this._jobs.update([]);
    this._status = null;
    this._componentsData = null;
    this._calls = new Map();
  }

  private _receive(message: KernelMessage): void {
    switch (message.type) {
      case 'status':
        this._status = message;
        this._renderServer();
        this._renderHeader();
        break;
      case 'jobs':
        this._jobs.update(message.jobs);
        break;
      case 'components':
        this._componentsData = message;
        this._renderComponents();
        break;
      case 'calls':
        if (message.reset) {
          this._calls = new Map();
        }
        this._capacity = message.capacity;
        this._stuck = message.stuck ?? 0;
        for (const call of message.calls) {
          const known = this._calls.get(call.id);
          if (!(known && known.ok !== null && call.ok === null)) {
            // batches from two threads may cross: never turn a finished call back into a running one
            this._calls.set(call.id, call);
          }
        }
        while (this._calls.size > this._capacity + 50) {
          // the kernel keeps `capacity` finished calls; trim ours alike
          const oldest = this._calls.keys().next().value as number;
          this._calls.delete(oldest);
        }
        this._renderCalls();
        this._renderInFlight();
        break;
      case 'provenance':
        if (message.id) {
          this._records.set(message.id, message.record);
          this._renderCalls();
        }
        break;
    }
  }

  private _render(): void {
    const state = this._link.state;
    if (state !== 'connected') {
      this._reset();
    }
    this.node.dataset.state = state;
    this._renderHeader();
    this._renderServer();
    this._renderComponents();
    this._renderCalls();
    this._renderInFlight();
  }

  /** Calls still running, with the progress they reported, and the count of stuck calls. */
  private _renderInFlight(): void {
    const connected = this._link.state === 'connected' && this._status?.loaded;
    const running = [...this._calls.values()].filter(call => call.ok === null).sort((a, b) => a.id - b.id);
    if (!connected || (!running.length && !this._stuck)) {
      this._inFlight.style.display = 'none';
      this._inFlight.replaceChildren();
      return;
    }
    this._inFlight.style.display = '';
    const rows = running.map(call => {
      const bar = el('progress', { class: 'jp-nanohub-mcp-progress' }) as HTMLProgressElement;
      let text = 'running';
      if (call.progress !== undefined && call.progress !== null) {
        if (call.total) {
          bar.max = call.total;
          bar.value = call.progress;
        }
        text = call.total ? `${call.progress}/${call.total}` : `${call.progress}`;
        if (call.message) {
          text = call.message.includes(text) ? text : `${text} · ${call.message}`;
        }
      }
      return el(
        'li',
        { class: 'jp-nanohub-mcp-running', 'data-name': call.name ?? call.method, title: call.message ?? '' },
        el('code', { class: 'jp-nanohub-mcp-what' }, call.name || call.method),
        bar,
        el('span', { class: 'jp-nanohub-mcp-progress-text' }, text)
      );
    });
    const stuck = this._stuck
      ? el(
          'div',
          {
            class: 'jp-nanohub-mcp-stuck',
            title: 'Calls past tool_timeout: the client got a timeout error, but their functions still run'
          },
          `${this._stuck} stuck call${this._stuck === 1 ? '' : 's'} still hold${this._stuck === 1 ? 's' : ''} a worker`
        )
      : null;
    this._inFlight.replaceChildren(
      this._title('In flight', running.length),
      el('ol', { class: 'jp-nanohub-mcp-runninglist' }, ...rows),
      ...(stuck ? [stuck] : [])
    );
  }

  private _renderHeader(): void {
    const state = this._link.state;
    const s = this._status;
    let label: string;
    let tone: string;
    if (state === 'connected' && s && s.loaded) {
      label = s.running ? 'Serving' : 'Stopped';
      tone = s.running ? 'ok' : 'off';
    } else {
      label = { connecting: 'Connecting', restarting: 'Restarting', 'not-loaded': 'Not loaded' }[
        state as string
      ] ?? 'Idle';
      tone = state === 'connecting' || state === 'restarting' ? 'wait' : 'off';
    }
    const refresh = el('button', {
      class: 'jp-nanohub-mcp-iconbutton',
      title: 'Ask the kernel for everything again',
      'aria-label': 'Refresh'
    });
    refresh.append(refreshIcon.element({ tag: 'span', height: '16px', width: '16px' }));
    refresh.addEventListener('click', () => this.refresh());
    const notebook = this._notebook ? this._notebook.title.label : '';
    this._header.replaceChildren(
      el(
        'div',
        { class: 'jp-nanohub-mcp-headline' },
        el('span', { class: 'jp-nanohub-mcp-heading' }, 'MCP server'),
        el('span', { class: `jp-nanohub-mcp-pill jp-mod-${tone}` }, label),
        state === 'connected' ? refresh : null
      ),
      el('div', { class: 'jp-nanohub-mcp-sub', title: this._notebook?.context.path ?? '' }, notebook)
    );
  }

  private _renderServer(): void {
    const state = this._link.state;
    const s = this._status;
    if (state !== 'connected' || !s || !s.loaded) {
      const hint = HINTS[state] || 'Waiting for the kernel…';
      this._server.replaceChildren(el('p', { class: 'jp-nanohub-mcp-hint' }, hint));
      return;
    }
    const rows: HTMLElement[] = [
      el(
        'div',
        { class: 'jp-nanohub-mcp-identity' },
        el('span', { class: 'jp-nanohub-mcp-name' }, s.name ?? ''),
        el('span', { class: 'jp-nanohub-mcp-muted' }, ` v${s.version ?? ''} · ${s.mode ?? ''} mode`)
      )
    ];
    if (s.running && s.public_url) {
      const where = s.hub ? 'Public URL (nanoHUB)' : 'URL (this machine only)';
      rows.push(this._urlBlock(where, s.mcp_url ?? s.public_url, 'jp-nanohub-mcp-public'));
      if (s.local_url && s.local_url !== s.public_url) {
        rows.push(this._urlBlock('On this machine', s.local_url, 'jp-nanohub-mcp-local'));
      }
      const endpoints = s.endpoints ?? [];
      const fold = el(
        'details',
        { class: 'jp-nanohub-mcp-endpoints' },
        el('summary', {}, `All endpoints (${endpoints.length})`),
        ...endpoints.map(e => this._endpointRow(e.label, e.url, s.public_url ?? ''))
      );
      if (this._endpointsOpen) {
        fold.setAttribute('open', '');
      }
      fold.addEventListener('toggle', () => (this._endpointsOpen = fold.open));
      rows.push(fold);
    } else {
      rows.push(
        el(
          'p',
          { class: 'jp-nanohub-mcp-hint' },
          'Not running. A %%mcp_tool cell or %mcp start starts it; a server built in a cell starts with server.run().'
        )
      );
    }
    this._server.replaceChildren(...rows);
  }

  /** A labelled URL: the label and a Copy button on one line, the whole URL (wrapping) below. */
  private _urlBlock(label: string, url: string, extraClass = ''): HTMLElement {
    return el(
      'div',
      { class: `jp-nanohub-mcp-url ${extraClass}`.trim() },
      el(
        'div',
        { class: 'jp-nanohub-mcp-urlhead' },
        el('span', { class: 'jp-nanohub-mcp-label' }, label),
        this._copyButton(url)
      ),
      el('a', { href: url, target: '_blank', rel: 'noopener', title: url }, url)
    );
  }

  /** One endpoint: its label, its path under the base URL, and a Copy button (of the full URL). */
  private _endpointRow(label: string, url: string, base: string): HTMLElement {
    const shown = base && url.startsWith(base) ? url.slice(base.length - 1) : url;
    return el(
      'div',
      { class: 'jp-nanohub-mcp-endpoint' },
      el('span', { class: 'jp-nanohub-mcp-muted' }, label),
      el('a', { href: url, target: '_blank', rel: 'noopener', title: url }, el('code', {}, shown)),
      this._copyButton(url)
    );
  }

  private _copyButton(text: string): HTMLElement {
    const copy = el('button', { class: 'jp-nanohub-mcp-button', title: 'Copy to the clipboard' }, 'Copy');
    copy.addEventListener('click', () => {
      Clipboard.copyToSystem(text);
      copy.textContent = 'Copied';
      window.setTimeout(() => (copy.textContent = 'Copy'), 1500);
    });
    return copy;
  }

  private _item(name: string, description: string, badge: string | null, extra: Record<string, string> = {}) {
    return el(
      'li',
      { class: 'jp-nanohub-mcp-item', ...extra },
      el(
        'div',
        { class: 'jp-nanohub-mcp-itemline' },
        el('code', {}, name),
        badge ? el('span', { class: 'jp-nanohub-mcp-badge' }, badge) : null
      ),
      description ? el('div', { class: 'jp-nanohub-mcp-desc' }, description) : null
    );
  }

  private _renderComponents(): void {
    const c = this._componentsData;
    if (this._link.state !== 'connected' || !c) {
      this._components.replaceChildren();
      return;
    }
    const tools = c.tools.map(t =>
      this._item(t.name, t.description, t.runs, { class: 'jp-nanohub-mcp-item jp-nanohub-mcp-tool', 'data-name': t.name })
    );
    const parts: HTMLElement[] = [
      this._title('Tools', c.tools.length),
      tools.length
        ? el('ul', { class: 'jp-nanohub-mcp-list' }, ...tools)
        : el('p', { class: 'jp-nanohub-mcp-hint' }, 'No tools yet: define one in a %%mcp_tool cell, or decorate a function with @server.tool().')
    ];
    if (c.resources.length) {
      parts.push(
        this._title('Resources', c.resources.length),
        el(
          'ul',
          { class: 'jp-nanohub-mcp-list' },
          ...c.resources.map(r => this._item(r.uri, r.description, r.template ? 'template' : null))
        )
      );
    }
    if (c.prompts.length) {
      parts.push(
        this._title('Prompts', c.prompts.length),
        el(
          'ul',
          { class: 'jp-nanohub-mcp-list' },
          ...c.prompts.map(p => this._item(p.name, p.description, null))
        )
      );
    }
    this._components.replaceChildren(...parts);
  }

  private _title(text: string, count: number): HTMLElement {
    return el(
      'div',
      { class: 'jp-nanohub-mcp-title' },
      el('span', {}, `${text} `),
      el('span', { class: 'jp-nanohub-mcp-count' }, String(count))
    );
  }

  private _renderCalls(): void {
    const connected = this._link.state === 'connected' && this._status?.loaded;
    this._log.style.display = connected ? '' : 'none';
    if (!connected) {
      return;
    }
    const calls = [...this._calls.values()].sort((a, b) => b.id - a.id);
    this._callsCount.textContent = String(calls.length);
    if (!calls.length) {
      this._callsList.replaceChildren(
        el('li', { class: 'jp-nanohub-mcp-hint' }, 'No calls yet. They appear here as MCP clients call the server.')
      );
      return;
    }
    this._callsList.replaceChildren(...calls.map(call => this._callRow(call)));
  }

  private _callRow(call: ICall): HTMLElement {
    const state = call.ok === null ? 'running' : call.ok ? 'ok' : 'error';
    const mark = { running: '•', ok: '✓', error: '✗' }[state];
    const row = el(
      'li',
      { class: `jp-nanohub-mcp-call jp-mod-${state}`, 'data-method': call.method, title: call.error ?? '' },
      el(
        'div',
        { class: 'jp-nanohub-mcp-callline' },
        el('span', { class: 'jp-nanohub-mcp-mark', title: state }, mark),
        el('code', { class: 'jp-nanohub-mcp-what' }, call.name || call.method),
        el('span', { class: 'jp-nanohub-mcp-duration' }, duration(call.duration_ms))
      ),
      el(
        'div',
        { class: 'jp-nanohub-mcp-callmeta' },
        `${clock(call.time)} · ${call.method}`
      ),
      call.error ? el('div', { class: 'jp-nanohub-mcp-error' }, call.error) : null,
      this._recordView(call)
    );
    if (call.record) {
      const record = call.record;
      row.classList.add('jp-mod-recorded');
      row.title = call.error ?? 'Click to show the provenance record of this call';
      row.addEventListener('click', () => {
        if (this._open.has(record)) {
          this._open.delete(record);
        } else {
          this._open.add(record);
          this._link.send({ type: 'provenance', id: record });
        }
        this._renderCalls();
      });
    }
    return row;
  }

  /** The expanded provenance record of a call (tool, code hash, arguments, times, where, digest, cache). */
  private _recordView(call: ICall): HTMLElement | null {
    if (!call.record || !this._open.has(call.record)) {
      return null;
    }
    if (!this._records.has(call.record)) {
      return el('div', { class: 'jp-nanohub-mcp-record' }, 'Loading the provenance record…');
    }
    const record = this._records.get(call.record);
    if (!record) {
      return el('div', { class: 'jp-nanohub-mcp-record' }, `No record ${call.record} (unknown, or expired).`);
    }
    const code = (record.code ?? {}) as { [key: string]: unknown };
    const time = (value: unknown) => (typeof value === 'number' ? new Date(value * 1000).toISOString() : '-');
    const rows: [string, unknown][] = [
      ['record', record.id],
      ['tool', record.tool],
      ['code hash', code.hash],
      ['arguments', JSON.stringify(record.arguments ?? {})],
      ['started', time(record.started)],
      ['ended', time(record.ended)],
      ['executor', record.executor],
      ['where', JSON.stringify(record.where ?? {})],
      ['status', record.status],
      ['result digest', record.result_digest],
      ['cache', record.cache ?? '-']
    ];
    const view = el(
      'dl',
      { class: 'jp-nanohub-mcp-record', 'data-record': call.record },
      ...rows.flatMap(([key, value]) => [
        el('dt', {}, key),
        el('dd', { 'data-field': key }, value === null || value === undefined ? '-' : String(value))
      ])
    );
    view.addEventListener('click', event => event.stopPropagation()); // selecting text keeps it open
    return view;
  }

  private _jobs = new JobsSection();
  private _link = new KernelLink();
  private _notebook: NotebookPanel | null = null;
  private _status: IStatus | null = null;
  private _componentsData: IComponents | null = null;
  private _calls = new Map<number, ICall>();
  private _records = new Map<string, { [key: string]: unknown } | null>();
  private _open = new Set<string>();
  private _capacity = 200;
  private _stuck = 0;
  private _inFlight: HTMLElement;
  private _endpointsOpen = false;
  private _header: HTMLElement;
  private _server: HTMLElement;
  private _components: HTMLElement;
  private _log: HTMLElement;
  private _callsList: HTMLElement;
  private _callsCount: HTMLElement;
}
