/** The absolute path of the console's built files (index.html, assets/), made by `pnpm build`. */
export declare const adminDir: string;
