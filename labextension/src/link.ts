/**
 * The panel's end of the `nanohubmcp` comm: follows one notebook's kernel.
 *
 * Handshake (see `nanohubmcp/jupyter/comm.py`): the link opens a comm to the
 * kernel once the kernel is ready. Without `%load_ext nanohubmcp` the kernel
 * closes it at once ("not loaded"). While not loaded, the link reads the code
 * the kernel runs (iopub `execute_input`): after a cell that mentions
 * nanohubmcp, `MCPServer` or `.run(` finishes, it opens a comm again. The kernel
 * never opens a comm itself, so front ends without this panel (classic
 * Notebook, VS Code) see nothing. After a kernel restart the link opens a new
 * comm once the new kernel answers a kernel_info request.
 */
import { ISessionContext } from '@jupyterlab/apputils';
import { Kernel, KernelMessage } from '@jupyterlab/services';
import { ISignal, Signal } from '@lumino/signaling';

import { KernelMessage as PanelMessage, PanelRequest, TARGET } from './protocol';

/**
 * Where the link stands:
 * - `no-notebook`: no notebook to follow;
 * - `no-kernel`: the notebook has no kernel (or it died);
 * - `connecting`: waiting for the kernel or for its first answer;
 * - `not-loaded`: the kernel answered, `%load_ext nanohubmcp` has not run;
 * - `restarting`: the kernel is restarting;
 * - `connected`: the comm is open and the kernel sent its status.
 */
export type LinkState =
  | 'no-notebook'
  | 'no-kernel'
  | 'connecting'
  | 'not-loaded'
  | 'restarting'
  | 'connected';

/** Code that may load the kernel side of the panel (or start a server it follows). */
const LOADS = /nanohubmcp|MCPServer|\.run\(/;

function delay(ms: number): Promise<void> {
  return new Promise(resolve => window.setTimeout(resolve, ms));
}

export class KernelLink {
  /** Every message the kernel sends on the comm. */
  get messageReceived(): ISignal<this, PanelMessage> {
    return this._messageReceived;
  }

  /** Emitted when {@link state} changes. */
  get stateChanged(): ISignal<this, LinkState> {
    return this._stateChanged;
  }

  get state(): LinkState {
    return this._state;
  }

  /** The notebook followed now, or null. */
  get context(): ISessionContext | null {
    return this._context;
  }

  /** Follow the kernel of `context` (null: follow nothing). */
  attach(context: ISessionContext | null): void {
    if (context === this._context) {
      return;
    }
    if (this._context) {
      this._context.kernelChanged.disconnect(this._onKernelChanged, this);
      this._context.statusChanged.disconnect(this._onStatus, this);
      this._context.connectionStatusChanged.disconnect(this._onConnection, this);
    }
    this._context = context;
    if (!context) {
      this._setKernel(null);
      this._setState('no-notebook');
      return;
    }
    context.kernelChanged.connect(this._onKernelChanged, this);
    context.statusChanged.connect(this._onStatus, this);
    context.connectionStatusChanged.connect(this._onConnection, this);
    this._setKernel(context.session?.kernel ?? null);
  }

  /** Send a request to the kernel; false when no comm is open. */
  send(request: PanelRequest): boolean {
    if (!this._comm || this._comm.isDisposed) {
      return false;
    }
    this._comm.send(request as any);
    return true;
  }

  dispose(): void {
    this.attach(null);
    Signal.clearData(this);
  }

  private _onKernelChanged(
    _: ISessionContext,
    change: { newValue: Kernel.IKernelConnection | null }
  ): void {
    this._setKernel(change.newValue);
  }

  private _onStatus(_: ISessionContext, status: Kernel.Status): void {
    if (status === 'restarting' || status === 'autorestarting') {
      this._dropComm();
      this._restarted = true;
      this._setState('restarting');
    } else if (status === 'dead') {
      this._dropComm();
      this._setState('no-kernel');
    } else if (this._restarted && (status === 'starting' || status === 'idle' || status === 'busy')) {
      this._restarted = false;
      void this._reopen();
    }
  }

  private _onConnection(_: ISessionContext, status: Kernel.ConnectionStatus): void {
    // After a restart the kernel status may stay "unknown" once the websocket is back.
    if (status === 'connected' && this._restarted) {
      this._restarted = false;
      void this._reopen();
    }
  }

  private _setKernel(kernel: Kernel.IKernelConnection | null): void {
    if (kernel === this._kernel) {
      return;
    }
    if (this._kernel && !this._kernel.isDisposed) {
      if (this._comm && !this._comm.isDisposed) {
        try {
          this._comm.close();
        } catch {
          // the kernel is gone: nothing to tell it
        }
      }
    }
    this._kernel?.iopubMessage.disconnect(this._onIopub, this);
    this._comm = null;
    this._restarted = false;
    this._loadPending = false;
    this._kernel = kernel;
    kernel?.iopubMessage.connect(this._onIopub, this);
    if (!kernel) {
      this._setState(this._context ? 'no-kernel' : 'no-notebook');
      return;
    }
    this._setState('connecting');
    void this._open();
  }

  /** Open the comm again when none is open (the panel's refresh button). */
  retry(): void {
    if (this._kernel && (!this._comm || this._comm.isDisposed)) {
      void this._open();
    }
  }

  /**
   * While no comm is open: a cell that may have loaded nanohubmcp (or started a
   * `server.run()` server) has run once the kernel is idle again; open a comm then.
   */
  private _onIopub(kernel: Kernel.IKernelConnection, msg: KernelMessage.IIOPubMessage): void {
    if (kernel !== this._kernel || (this._comm && !this._comm.isDisposed)) {
      return;
    }
    if (msg.header.msg_type === 'execute_input') {
      const code = String((msg.content as { code?: string }).code ?? '');
      if (LOADS.test(code)) {
        this._loadPending = true;
      }
    } else if (
      this._loadPending &&
      msg.header.msg_type === 'status' &&
      (msg.content as { execution_state?: string }).execution_state === 'idle'
    ) {
      this._loadPending = false;
      void this._open();
    }
  }

  /**
   * After a restart: once the websocket is connected again and the new kernel
   * answers a kernel_info request, open a comm. JupyterLab 4.6 may stay at
   * "starting" until the next request, and a request sent while it reconnects
   * can be dropped, hence the bounded retries (about 30 s in all).
   */
  private async _reopen(): Promise<void> {
    const kernel = this._kernel;
    for (let attempt = 0; attempt < 15; attempt++) {
      if (!kernel || kernel !== this._kernel || kernel.isDisposed || this._comm) {
        return;
      }
      if (kernel.connectionStatus === 'connected') {
        const answered = await Promise.race([
          kernel.requestKernelInfo().then(
            () => true,
            () => false
          ),
          delay(2000).then(() => false)
        ]);
        if (answered) {
          return this._open();
        }
      } else {
        await delay(500);
      }
    }
  }

  private async _open(): Promise<void> {
    const kernel = this._kernel;
    if (!kernel) {
      return;
    }
    try {
      await kernel.info;
    } catch {
      return;
    }
    if (kernel !== this._kernel || kernel.isDisposed) {
      return;
    }
    if (this._comm && !this._comm.isDisposed) {
      return;
    }
    if (this._state !== 'connected') {
      this._setState('connecting');
    }
    const comm = kernel.createComm(TARGET);
    this._comm = comm;
    comm.onMsg = (msg: KernelMessage.ICommMsgMsg) => {
      if (comm !== this._comm) {
        return;
      }
      const data = msg.content.data as unknown as PanelMessage;
      if (data && data.type === 'status') {
        this._setState(data.loaded ? 'connected' : 'not-loaded');
      }
      this._messageReceived.emit(data);
    };
    comm.onClose = () => {
      if (comm === this._comm) {
        this._comm = null;
        this._setState('not-loaded');
      }
    };
    comm.open({ type: 'hello' } as any);
  }

  private _dropComm(): void {
    // The kernel's comms die with it; JupyterLab disposes ours without onClose.
    this._comm = null;
  }

  private _setState(state: LinkState): void {
    if (state !== this._state) {
      this._state = state;
      this._stateChanged.emit(state);
    }
  }

  private _context: ISessionContext | null = null;
  private _kernel: Kernel.IKernelConnection | null = null;
  private _comm: Kernel.IComm | null = null;
  private _restarted = false;
  private _loadPending = false;
  private _state: LinkState = 'no-notebook';
  private _messageReceived = new Signal<this, PanelMessage>(this);
  private _stateChanged = new Signal<this, LinkState>(this);
}
