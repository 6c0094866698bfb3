import { Injectable } from '@nestjs/common';
import {
  AD_SORTS,
  AD_STATUSES,
  BREAKDOWN_FIELDS,
  CREATIVE_FORMATS,
  INTERFACE_VERSION,
  PLATFORMS,
  TREND_DIMENSIONS,
  type Catalog,
} from '@adintel/contracts';
import { describeCost, restRoute, TOOLS } from '@adintel/tool-catalogue';
import { DataWindowService } from '../paging/data-window.service';
import { categoryLabel, countryLabel } from './labels';

@Injectable()
export class CatalogService {
  constructor(private readonly dataWindow: DataWindowService) {}

  async catalog(): Promise<Catalog> {
    const data = await this.dataWindow.catalog();
    return {
      interface_version: INTERFACE_VERSION,
      countries: data.countries.map((value) => ({ value, label: countryLabel(value) })),
      platforms: [...PLATFORMS],
      categories: data.categories.map((value) => ({ value, label: categoryLabel(value) })),
      languages: data.languages,
      creative_formats: [...CREATIVE_FORMATS],
      statuses: [...AD_STATUSES],
      sorts: [...AD_SORTS],
      trend_dimensions: [...TREND_DIMENSIONS],
      breakdown_fields: [...BREAKDOWN_FIELDS],
      data_window: { first_seen_date: data.firstSeenDate, last_seen_date: data.lastSeenDate },
      data_as_of: data.lastSeenDate,
      data_updated_at: this.dataWindow.liveUpdatedAt(),
      tools: TOOLS.map((tool) => ({ name: tool.name, cost: describeCost(tool.cost), http: restRoute(tool) })),
    };
  }
}
