// Bytes as base64 text, for what is kept in localStorage (a view's binary protobuf).
import { base64Decode, base64Encode } from "@bufbuild/protobuf/wire";

export function toBase64(bytes: Uint8Array): string {
  return base64Encode(bytes);
}

export function fromBase64(text: string): Uint8Array {
  return base64Decode(text);
}
