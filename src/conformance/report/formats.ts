export const FORMATS = ['pretty', 'json', 'sarif', 'junit', 'markdown', 'github'] as const;
export type Format = (typeof FORMATS)[number];
