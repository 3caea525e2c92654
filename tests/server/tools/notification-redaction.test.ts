import { describe, expect, it } from 'vitest';
import { redactNotificationRules, redactWebhookUrl } from '../../../src/server/tools/notification-redaction.js';

describe('notification rule redaction', () => {
  it('keeps scheme and host (with port) of a webhook URL and drops path, query and fragment', () => {
    expect(redactWebhookUrl('https://hooks.example.com/t/SECRET-PATH?sig=Q#f')).toBe('https://hooks.example.com/[redacted]');
    expect(redactWebhookUrl('https://hooks.example.com:8443/x')).toBe('https://hooks.example.com:8443/[redacted]');
    expect(redactWebhookUrl('https://user:pw@hooks.example.com/x')).toBe('https://hooks.example.com/[redacted]');
    expect(redactWebhookUrl('::not a url::')).toBe('[redacted]');
  });

  it('redacts url path, signing secret and every custom header value; keeps names and the rest', () => {
    const response = {
      bucketId: 'b1',
      eventNotificationRules: [
        {
          name: 'uploads',
          eventTypes: ['b2:ObjectCreated:*'],
          isEnabled: true,
          objectNamePrefix: 'img/',
          targetConfiguration: {
            targetType: 'webhook' as const,
            url: 'https://hooks.example.com/token-abc',
            hmacSha256SigningSecret: 'S'.repeat(32),
            customHeaders: [
              { name: 'X-Token', value: 'header-secret' },
              { name: 'X-Env', value: 'prod' },
            ],
          },
        },
        {
          name: 'plain',
          eventTypes: ['b2:ObjectDeleted:*'],
          isEnabled: false,
          targetConfiguration: {
            targetType: 'webhook' as const,
            url: 'https://other.example.net/',
            hmacSha256SigningSecret: null,
            customHeaders: null,
          },
        },
      ],
    };
    const redacted = redactNotificationRules(response);
    expect(redacted.eventNotificationRules[0]!.targetConfiguration).toEqual({
      targetType: 'webhook',
      url: 'https://hooks.example.com/[redacted]',
      hmacSha256SigningSecret: '[redacted]',
      customHeaders: [
        { name: 'X-Token', value: '[redacted]' },
        { name: 'X-Env', value: '[redacted]' },
      ],
    });
    expect(redacted.eventNotificationRules[0]).toMatchObject({ name: 'uploads', objectNamePrefix: 'img/', isEnabled: true });
    expect(redacted.eventNotificationRules[1]!.targetConfiguration).toEqual({
      targetType: 'webhook',
      url: 'https://other.example.net/[redacted]',
      hmacSha256SigningSecret: null,
      customHeaders: null,
    });
    expect(JSON.stringify(redacted)).not.toMatch(/token-abc|SSSS|header-secret|prod/);
    // The input is not modified.
    expect(response.eventNotificationRules[0]!.targetConfiguration.url).toBe('https://hooks.example.com/token-abc');
  });
});
