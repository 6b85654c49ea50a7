import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../server/cli/redact-url.ts';

describe('redactUrl', () => {
  it('hides the password of a URL, in the userinfo or a password parameter, and keeps the rest', () => {
    expect(redactUrl('redis://:S3cret@127.0.0.1:6379')).toBe('redis://:***@127.0.0.1:6379');
    expect(redactUrl('rediss://bob:p%40ss@h:1/2?password=S3cret&db=1')).toBe(
      'rediss://bob:***@h:1/2?password=***&db=1',
    );
    expect(redactUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
    expect(redactUrl('redis://bob@h:1')).toBe('redis://bob@h:1');
  });

  it('drops everything up to the last @ of text that is not a URL', () => {
    expect(redactUrl(':S3c@ret@127.0.0.1:6379')).toBe('***@127.0.0.1:6379');
    expect(redactUrl('127.0.0.1:6379')).toBe('127.0.0.1:6379');
  });
});
