import { Global, Module } from '@nestjs/common';
import { PlanCatalog } from './plan-catalog';

@Global()
@Module({ providers: [PlanCatalog], exports: [PlanCatalog] })
export class PlansModule {}
