// Private tables' invites (docs/protocol.md, "Private tables"): the creator draws the invite code (16 random
// bytes, base64url: what the server asks of a code) and shares it in a link to this page, `#/invite/ID/CODE`;
// whoever opens the link sees the table and takes a seat with the code. The code never leaves the link and
// the seat record of the people who hold it.
import { randomToken } from "../api";

/** What the server accepts as an invite code: 16 to 128 characters of A-Z a-z 0-9 - _. */
const CODE = /^[A-Za-z0-9_-]{16,128}$/;
const TABLE_ID = /^[A-Za-z0-9_-]{1,128}$/;

export interface Invite {
  tableId: string;
  code: string;
}

/** A new invite code from the platform's CSPRNG. */
export function newInviteCode(): string {
  return randomToken(16);
}

/** The page's address for an invite: the page itself (origin and path) with the invite's hash. */
export function inviteLink(page: string, invite: Invite): string {
  const base = page.replace(/#.*$/, "");
  return `${base}#/invite/${encodeURIComponent(invite.tableId)}/${encodeURIComponent(invite.code)}`;
}

/** The invite in an address's hash (`#/invite/ID/CODE`), or undefined when it is not a whole, valid one. */
export function parseInvite(hash: string): Invite | undefined {
  const [, page, tableId, code, ...rest] = hash.split("/");
  if (page !== "invite" || rest.length > 0 || tableId === undefined || code === undefined) return undefined;
  const id = decodeURIComponent(tableId);
  const secret = decodeURIComponent(code);
  return TABLE_ID.test(id) && CODE.test(secret) ? { tableId: id, code: secret } : undefined;
}
