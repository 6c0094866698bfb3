import { z } from 'zod';
import { baseConfigShape, ConfigError, loadConfig } from '../src/load-config';

const schema = z.object(baseConfigShape);

describe('HOST and TRUSTED_PROXIES', () => {
  it('binds to loopback and trusts only loopback proxies by default', () => {
    expect(loadConfig(schema, {})).toMatchObject({ HOST: '127.0.0.1', TRUSTED_PROXIES: ['loopback'] });
  });

  it('takes all interfaces and a list of proxy addresses and CIDRs when configured', () => {
    const config = loadConfig(schema, { HOST: '0.0.0.0', TRUSTED_PROXIES: '10.0.0.0/8, 192.168.1.7,uniquelocal,fd00::/8' });
    expect(config).toMatchObject({ HOST: '0.0.0.0', TRUSTED_PROXIES: ['10.0.0.0/8', '192.168.1.7', 'uniquelocal', 'fd00::/8'] });
  });

  it.each([
    ['HOST', 'example.com'],
    ['TRUSTED_PROXIES', '1'],
    ['TRUSTED_PROXIES', '10.0.0.0/33'],
    ['TRUSTED_PROXIES', 'everyone'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    expect(() => loadConfig(schema, { [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig(schema, { [name]: value })).toThrow(name);
  });
});
