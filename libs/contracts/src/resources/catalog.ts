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
  data_window: z.object({ first_seen_date: z.string().nullable(), last_seen_date: z.string().nullable() }),
  /** The newest sighting (latest last_seen_date, YYYY-MM-DD): "today" for default windows and status. */
  data_as_of: z.string().nullable(),
  /** When the newest live sighting applied was published (ISO time of its stream entry); null before the first one. */
  data_updated_at: z.string().nullable(),
  tools: z.array(z.object({ name: z.string(), cost: z.string(), http: z.string() })),
});
export type Catalog = z.infer<typeof Catalog>;
