// The tests' targets, receivers and SMTP servers listen on loopback, which the egress policy of every process
// but `meerkat dev` refuses by default. Tests allow it explicitly, as an operator would with EGRESS_ALLOW_CIDRS.
import { createEgressPolicies } from '../../hub/src/egress/egress-policies.js';
import { createEgressPolicy } from '../../hub/src/egress/egress-policy.js';

/** The allow rule, as the EGRESS_ALLOW_CIDRS of a test process. */
export const LOOPBACK_CIDRS = '127.0.0.0/8,::1/128';

/** The production defaults plus an allow for loopback. */
export const loopbackEgress = createEgressPolicy({ lists: { allowCidrs: LOOPBACK_CIDRS.split(',') } });

/** As loopbackEgress, for every location of a test hub. */
export const loopbackEgressPolicies = createEgressPolicies({
  lists: { allowCidrs: LOOPBACK_CIDRS.split(',') },
});
