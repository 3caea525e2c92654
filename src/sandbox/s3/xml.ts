/** S3 XML documents in and out, through fast-xml-parser. */
import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';
import { malformedXml } from './errors.js';

const S3_NAMESPACE = 'http://s3.amazonaws.com/doc/2006-03-01/';
const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', processEntities: true });

/** Element values: strings, numbers, booleans, nested objects, arrays (repeated elements); undefined is left out. */
type XmlValue = string | number | boolean | undefined | XmlObject | XmlObject[] | string[];
export interface XmlObject {
  [name: string]: XmlValue;
}

export function xmlDocument(root: string, content: XmlObject, namespace = true): string {
  return DECLARATION + builder.build({ [root]: namespace ? { '@_xmlns': S3_NAMESPACE, ...content } : content });
}

export function errorDocument(code: string, message: string, resource: string, requestId: string): string {
  return xmlDocument('Error', { Code: code, Message: message, Resource: resource, RequestId: requestId }, false);
}

/**
 * Parse a request document. Values stay strings (no number guessing, no trimming, so keys keep
 * their spaces); elements named in `repeated` are always arrays.
 */
export function parseXml(text: string, repeated: readonly string[]): Record<string, unknown> {
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw malformedXml(valid.err.msg);
  const parser = new XMLParser({
    ignoreAttributes: true,
    ignoreDeclaration: true,
    parseTagValue: false,
    trimValues: false,
    htmlEntities: true,
    isArray: (name) => repeated.includes(name),
  });
  return parser.parse(text) as Record<string, unknown>;
}

/** The text of a child element, or undefined when absent (whitespace-only layout text is not a value). */
export function childText(node: unknown, name: string): string | undefined {
  if (!node || typeof node !== 'object') return undefined;
  const value = (node as Record<string, unknown>)[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && '#text' in value) return String((value as Record<string, unknown>)['#text']);
  return '';
}

export function childNode(node: unknown, name: string): Record<string, unknown> | undefined {
  if (!node || typeof node !== 'object') return undefined;
  const value = (node as Record<string, unknown>)[name];
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : value === '' ? {} : undefined;
}

export function childList(node: unknown, name: string): unknown[] {
  if (!node || typeof node !== 'object') return [];
  const value = (node as Record<string, unknown>)[name];
  return Array.isArray(value) ? value : value === undefined ? [] : [value];
}
