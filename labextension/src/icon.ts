/**
 * The side bar icon: three linked nodes (a server and its clients).
 */
import { LabIcon } from '@jupyterlab/ui-components';

const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">
  <g class="jp-icon3" fill="#616161">
    <circle cx="6" cy="12" r="3.2"/>
    <circle cx="18" cy="5.5" r="2.8"/>
    <circle cx="18" cy="18.5" r="2.8"/>
    <path d="M8.3 10.4 15.6 6.6l.9 1.7-7.3 3.8zM8.3 13.6l.9-1.7 7.3 3.8-.9 1.7z"/>
  </g>
</svg>`;

export const mcpIcon = new LabIcon({ name: 'nanohub-mcp:icon', svgstr: svg });
