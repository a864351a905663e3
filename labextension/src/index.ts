/**
 * nanohub-mcp: a JupyterLab side panel showing the MCP server of the current
 * notebook's kernel (status, public URL, components, live call log), talking to
 * the kernel over the `nanohubmcp` comm.
 */
import {
  ILabShell,
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { PageConfig } from '@jupyterlab/coreutils';
import { INotebookTracker } from '@jupyterlab/notebook';

import { mcpIcon } from './icon';
import { MCPPanel } from './panel';

const PANEL_ID = 'nanohub-mcp-panel';

namespace CommandIDs {
  export const show = 'nanohub-mcp:show-panel';
  export const exportScript = 'nanohub-mcp:export-script';
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'nanohub-mcp:panel',
  description: "A side panel with the notebook's MCP server: URL, tools and a live call log.",
  autoStart: true,
  requires: [INotebookTracker],
  optional: [ILabShell, ILayoutRestorer, ICommandPalette],
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    labShell: ILabShell | null,
    restorer: ILayoutRestorer | null,
    palette: ICommandPalette | null
  ) => {
    const panel = new MCPPanel();
    panel.id = PANEL_ID;
    panel.title.icon = mcpIcon;
    panel.title.caption = 'MCP server';
    app.shell.add(panel, 'right', { rank: 1000 });
    restorer?.add(panel, PANEL_ID);

    const follow = () => panel.follow(tracker.currentWidget);
    tracker.currentChanged.connect(follow);
    follow();

    app.commands.addCommand(CommandIDs.show, {
      label: 'Show the MCP Server Panel',
      icon: mcpIcon,
      execute: () => {
        app.shell.activateById(PANEL_ID);
      }
    });
    app.commands.addCommand(CommandIDs.exportScript, {
      label: 'Export Notebook as an MCP Server Script',
      caption: 'Save the notebook, then download it as start_mcp.py-style Python (nbconvert --to mcp)',
      isEnabled: () => tracker.currentWidget !== null,
      execute: async () => {
        const current = tracker.currentWidget;
        if (!current) {
          return;
        }
        if (current.context.model.dirty) {
          await current.context.save();
        }
        const url = PageConfig.getNBConvertURL({ path: current.context.path, format: 'mcp', download: true });
        window.open(url, '_blank', 'noopener');
      }
    });
    if (palette) {
      const category = 'MCP Server';
      palette.addItem({ command: CommandIDs.show, category });
      palette.addItem({ command: CommandIDs.exportScript, category });
    }
    void labShell; // the panel lives in the right area of any shell with one
  }
};

export default plugin;
