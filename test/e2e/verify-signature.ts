// Edgecron-Signature checked as a user's Node receiver would: through the client's
// verifySignature (src/client/verify.ts), over the request the local target recorded.

import { deliveryVerifies } from "../helpers/signature";
import type { ReceivedCall } from "./harness";

export function signatureVerifies(
  targetUrl: string,
  call: ReceivedCall,
  secrets: string[],
): Promise<boolean> {
  return deliveryVerifies({ ...call, url: `${targetUrl}${call.path}` }, secrets);
}
