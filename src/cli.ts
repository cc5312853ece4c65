#!/usr/bin/env node
/**
 * The `lore` bin (package.json): the command itself is src/cli/index.ts. The bin stays at
 * dist/cli.js because npm and npx link their installs to that path (a cached `npx lore` would
 * keep running an old dist/cli.js if the bin moved).
 */
import './cli/index.js';
