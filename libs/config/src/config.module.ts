import { Global, Module, type DynamicModule } from '@nestjs/common';

/** Injection token of an app's validated config object. */
export const APP_CONFIG = Symbol('APP_CONFIG');

/** Makes the already-validated config injectable everywhere as `@Inject(APP_CONFIG)`. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot<T extends object>(config: T): DynamicModule {
    return { module: ConfigModule, providers: [{ provide: APP_CONFIG, useValue: config }], exports: [APP_CONFIG] };
  }
}
