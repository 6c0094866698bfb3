/**
 * What a call cost, as the ledger has it. `settled`: the ledger's own answer (or nothing was held).
 * `pending`: the charge was sent to metering but its answer never came back, so the gateway cannot
 * know whether it landed; it lands as `pending` tokens or, if the hold expires first, as 0. The ledger
 * entry (`list_usage_events`, `request_id` = `usageRequestId`) then says which. Never reported as 0.
 */
export type Receipt =
  | { readonly status: 'settled'; readonly charged: number; readonly remaining?: number; readonly replay?: boolean }
  | { readonly status: 'pending'; readonly pending: number; readonly usageRequestId: string };

/** Nothing was held, so nothing can have been charged (free tools, refused and failed calls). */
export const nothingCharged = (remaining?: number): Receipt => ({
  status: 'settled',
  charged: 0,
  ...(remaining !== undefined ? { remaining } : {}),
});

/** The receipt's fields, named as MCP `_meta` carries them; REST sends the same fields as headers. */
export interface ReceiptFields {
  readonly tokens_charged: number | 'pending';
  readonly tokens_remaining?: number;
  readonly tokens_pending?: number;
  readonly usage_request_id?: string;
  readonly idempotent_replay?: true;
}

export function receiptFields(receipt: Receipt): ReceiptFields {
  if (receipt.status === 'pending') {
    return { tokens_charged: 'pending', tokens_pending: receipt.pending, usage_request_id: receipt.usageRequestId };
  }
  return {
    tokens_charged: receipt.charged,
    ...(receipt.remaining !== undefined ? { tokens_remaining: receipt.remaining } : {}),
    ...(receipt.replay ? { idempotent_replay: true as const } : {}),
  };
}

/** The REST header of each receipt field: the compiler checks that every field has one. */
export const RECEIPT_HEADERS: { readonly [K in keyof Required<ReceiptFields>]: string } = {
  tokens_charged: 'X-Tokens-Charged',
  tokens_remaining: 'X-Tokens-Remaining',
  tokens_pending: 'X-Tokens-Pending',
  usage_request_id: 'X-Usage-Request-Id',
  idempotent_replay: 'Idempotent-Replay',
};

export function receiptHeaders(receipt: Receipt): Record<string, string> {
  return Object.fromEntries(
    Object.entries(receiptFields(receipt)).map(([field, value]) => [RECEIPT_HEADERS[field as keyof ReceiptFields], String(value)]),
  );
}
