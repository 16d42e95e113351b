import { fileURLToPath } from 'node:url';

/** The absolute path of the console's built files (index.html, assets/), made by `pnpm build`. */
export const adminDir = fileURLToPath(new URL('./dist/', import.meta.url));
