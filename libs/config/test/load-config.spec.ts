import { z } from 'zod';
import { baseConfigShape, ConfigError, flag, loadConfig, mcpResourceUrl, port } from '../src/load-config';

const schema = z.object({ ...baseConfigShape, PORT: port(3003), DEMO: flag(true) });

describe('loadConfig', () => {
  it('gives working local defaults for an empty environment', () => {
    expect(loadConfig(schema, {})).toMatchObject({
      PUBLIC_BASE_URL: 'http://localhost:3000',
      REDIS_URL: 'redis://127.0.0.1:6379',
      PORT: 3003,
      DEMO: true,
      LOG_LEVEL: 'info',
    });
  });

  it('parses values and trims the base URL', () => {
    const config = loadConfig(schema, { PORT: '8080', DEMO: 'no', PUBLIC_BASE_URL: 'https://ads.example.com/' });
    expect(config).toMatchObject({ PORT: 8080, DEMO: false, PUBLIC_BASE_URL: 'https://ads.example.com' });
    expect(mcpResourceUrl(config.PUBLIC_BASE_URL)).toBe('https://ads.example.com/mcp');
  });

  it('refuses bad values, naming every variable and what it got', () => {
    let error: unknown;
    try {
      loadConfig(schema, { PORT: 'eighty', REDIS_URL: 'http://x', LOG_LEVEL: 'loud' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toContain('PORT');
    expect(problems).toContain('"eighty"');
    expect(problems).toContain('REDIS_URL');
    expect(problems).toContain('LOG_LEVEL');
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig(schema, { PORT: '' }).PORT).toBe(3003);
  });
});
