export const FORMATS = ['pretty', 'json', 'sarif', 'junit', 'markdown', 'github', 'html'] as const;
export type Format = (typeof FORMATS)[number];
