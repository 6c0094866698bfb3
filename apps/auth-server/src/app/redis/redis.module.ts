import { APP_CONFIG } from '@adintel/config';
import { RedisModule } from '@adintel/redis';
import type { AppConfig } from '../../config';

/** The auth server's data Redis (`REDIS` of @adintel/redis); every key it writes carries REDIS_KEY_PREFIX. */
export const AuthRedisModule = RedisModule.register({
  inject: [APP_CONFIG],
  useFactory: (config: AppConfig) => ({ url: config.REDIS_URL, name: 'auth-server', keyPrefix: config.REDIS_KEY_PREFIX }),
});
