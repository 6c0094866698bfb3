import { Test } from '@nestjs/testing';
import { AppModule } from './app.module';
import { HealthController } from './health.controller';

describe('HealthController', () => {
  it('answers GET /healthz with {status: "ok"}', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    const app = moduleRef.createNestApplication();
    await app.listen(0);
    try {
      const res = await fetch(`${await app.getUrl()}/healthz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ok' });
      expect(moduleRef.get(HealthController)).toBeInstanceOf(HealthController);
    } finally {
      await app.close();
    }
  });
});
