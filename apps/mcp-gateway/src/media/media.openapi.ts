import { MEDIA_MIME_TYPES } from '@adintel/contracts';
import { describeCost, MEDIA_FILE } from '@adintel/tool-catalogue';
import { IDEMPOTENCY_HEADER } from '../idempotency/idempotency-key';
import { MEDIA_FILE_PATH, MEDIA_THUMBNAIL_PATH } from './media-target';

type Json = Record<string, unknown>;

const header = (name: string) => ({ $ref: `#/components/headers/${name}` });
const response = (name: string) => ({ $ref: `#/components/responses/${name}` });
const fileContent = Object.fromEntries(MEDIA_MIME_TYPES.map((mime) => [mime, { schema: { type: 'string', format: 'binary' } }]));

const PATH_PARAMETERS: Json[] = [
  { name: 'id', in: 'path', required: true, description: 'the creative id', schema: { type: 'string', minLength: 1, maxLength: 128 } },
  { name: 'n', in: 'path', required: true, description: 'the index of the media entry (0 is the first)', schema: { type: 'integer', minimum: 0 } },
];
const CONDITIONAL: Json[] = [
  { name: 'If-None-Match', in: 'header', required: false, description: 'an ETag you hold: 304 (free) when the file is unchanged', schema: { type: 'string' } },
  {
    name: 'Range',
    in: 'header',
    required: false,
    description:
      'one byte range (bytes=start-end, bytes=start-, bytes=-length): 206 with Content-Range; a range past the end, or a header that cannot be read, is a 416; several ranges get the whole file (200)',
    schema: { type: 'string' },
  },
];

/**
 * The OpenAPI operations of the media routes, from the paths the controller serves and the price the catalogue
 * gives `media_file`. They are not tool twins: no MCP tool answers them (MCP reads a file with resources/read).
 */
export function mediaOpenApiPaths(): Json {
  const operation = (variant: 'file' | 'thumbnail'): Json => {
    const paid = variant === 'file';
    const cost = paid
      ? `${describeCost(MEDIA_FILE.cost)}, charged once per caller, file and UTC day (later reads and ranges of it that day are free)`
      : 'free (it rides with the record)';
    return {
      operationId: paid ? MEDIA_FILE.name : 'media_thumbnail',
      summary: paid ? "A creative's media file" : "A creative's media thumbnail",
      description:
        (paid
          ? 'The file of media entry n of a creative: the `url` of its entry in get_ad/get_creative. MCP reads the same URL with resources/read, at the same price.'
          : 'The WebP thumbnail (at most 256 px a side) of media entry n: the `thumbnail_url` of its entry.') +
        ` Cost: ${cost}. Served only as ${MEDIA_MIME_TYPES.join(', ')} with X-Content-Type-Options: nosniff; HEAD is free.`,
      parameters: [
        ...PATH_PARAMETERS,
        ...CONDITIONAL,
        ...(paid
          ? [{ name: IDEMPOTENCY_HEADER, in: 'header', required: false, description: 'your key for this call: a repeat with it is a free replay', schema: { type: 'string', minLength: 1, maxLength: 255 } }]
          : []),
      ],
      responses: {
        '200': {
          description: `The file. Cost: ${cost}.`,
          headers: Object.fromEntries(['X-Tokens-Charged', 'X-Tokens-Remaining', 'X-Request-Id', ...(paid ? ['Idempotent-Replay'] : [])].map((h) => [h, header(h)])),
          content: fileContent,
        },
        '206': { description: 'The byte range asked for, with Content-Range.', content: fileContent },
        '304': { description: 'Not modified (the If-None-Match ETag is current): free.' },
        '400': response('BadRequest'),
        '401': response('Unauthorized'),
        ...(paid ? { '402': response('PaymentRequired'), '409': response('Conflict'), '429': response('TooManyRequests') } : {}),
        '403': response('Forbidden'),
        '404': { ...response('NotFound') },
        '416': response('RangeNotSatisfiable'),
        '503': response('ServiceUnavailable'),
        '504': response('GatewayTimeout'),
      },
      'x-token-cost': cost,
    };
  };
  return {
    [MEDIA_FILE_PATH]: { get: operation('file') },
    [MEDIA_THUMBNAIL_PATH]: { get: operation('thumbnail') },
  };
}
