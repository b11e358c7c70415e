import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The bin as the tests build it (see global-setup.ts). */
export const BIN_DIR = join(PACKAGE_DIR, 'node_modules', '.cache', 'wai-steer-bin');
export const BIN = join(BIN_DIR, 'main.js');
export const REPO_DIR = join(PACKAGE_DIR, '..', '..');
