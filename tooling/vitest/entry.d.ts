export function entryArgs(root: string, script: string): string[];
