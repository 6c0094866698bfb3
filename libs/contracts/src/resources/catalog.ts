import { z } from 'zod';

const Labelled = z.object({ value: z.string(), label: z.string() });

/** get_catalog: every allowed value an agent may pass, and what each tool costs. */
export const Catalog = z.object({
  interface_version: z.string(),
  countries: z.array(Labelled),
  platforms: z.array(z.string()),
  categories: z.array(Labelled),
  languages: z.array(z.string()),
  creative_formats: z.array(z.string()),
  statuses: z.array(z.string()),
  sorts: z.array(z.string()),
  trend_dimensions: z.array(z.string()),
  breakdown_fields: z.array(z.string()),
  destination_types: z.array(z.string()).describe('where an ad sends people: search_ads `destination_type` values'),
  data_window: z.object({ first_seen_date: z.string().nullable(), last_seen_date: z.string().nullable() }),
  coverage: z
    .array(z.object({ platform: z.string(), country: z.string(), ads: z.int().min(0), newest_sighting: z.string() }))
    .describe('ads held and the newest sighting per platform and country; a pair absent here holds no ads'),
  /** The newest sighting (latest last_seen_date, YYYY-MM-DD): "today" for default windows and status. */
  data_as_of: z.string().nullable(),
  /** When the newest live sighting applied was published (ISO time of its stream entry); null before the first one. */
  data_updated_at: z.string().nullable(),
  tools: z.array(
    z.object({
      name: z.string(),
      cost: z.string(),
      http: z.string(),
      fields: z.array(z.string()).optional().describe('list tools: the row fields `fields` may name'),
    }),
  ),
});
export type Catalog = z.infer<typeof Catalog>;
