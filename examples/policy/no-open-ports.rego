# The "no port open to the internet" rule for conftest / OPA, on the plan's stable JSON (schema/plan.schema.json):
#
#   cubeform plan --format json > plan.json
#   conftest test --policy examples/policy plan.json
#
# A port the change creates or replaces with no allow list, or one that allows 0.0.0.0/0 or ::/0, is denied.
# cubeform's own policy files check the same rule natively (deny: { portsOpenToInternet: true }).
package main

import rego.v1

makes := {"create", "delete-then-create", "create-then-delete"}

open_cidrs := {"0.0.0.0/0", "::/0"}

open_to_internet(port) if count(object.get(port, "allow", [])) == 0

open_to_internet(port) if {
	some cidr in port.allow
	cidr in open_cidrs
}

deny contains msg if {
	some change in input.changes
	change.kind == "port"
	change.action in makes
	open_to_internet(change.after)
	msg := sprintf("%s: port %v is open to the whole internet: list the addresses that may connect in its allow", [change.address, change.after.cubePort])
}
