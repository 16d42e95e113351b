/** The absolute path of the built script (kb-assistant.js), made by `pnpm build`. */
export declare const widgetFile: string;
/** The script's version (the package's): its immutable address names it. */
export declare const widgetVersion: string;
