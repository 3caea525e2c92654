/**
 * Webhook rules carry secrets in three places: the URL path (often a token), the HMAC signing
 * secret and custom header values. The notification tools return rules with all three redacted
 * (contract §2.7); the central sanitizer would catch the last two by key name, the URL path it
 * cannot know about.
 */
import { REDACTED } from '../policy/sanitize.js';
import type { B2NotificationRule, B2NotificationRulesResponse } from '../b2/types.js';

/** `https://host[:port]/[redacted]`: enough to recognise the endpoint, nothing that authenticates to it. */
export function redactWebhookUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.host) return REDACTED;
    return `${parsed.protocol}//${parsed.host}/${REDACTED}`;
  } catch {
    return REDACTED;
  }
}

function redactRule(rule: B2NotificationRule): B2NotificationRule {
  const target = rule.targetConfiguration;
  if (!target || typeof target !== 'object') return rule;
  const { hmacSha256SigningSecret, customHeaders } = target;
  return {
    ...rule,
    targetConfiguration: {
      ...target,
      url: typeof target.url === 'string' ? redactWebhookUrl(target.url) : target.url,
      ...(hmacSha256SigningSecret !== undefined && hmacSha256SigningSecret !== null ? { hmacSha256SigningSecret: REDACTED } : {}),
      ...(Array.isArray(customHeaders) ? { customHeaders: customHeaders.map((header) => ({ ...header, value: REDACTED })) } : {}),
    },
  };
}

export function redactNotificationRules(response: B2NotificationRulesResponse): B2NotificationRulesResponse {
  return { ...response, eventNotificationRules: response.eventNotificationRules.map(redactRule) };
}
