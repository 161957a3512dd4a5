// Package rules is rdmatop's diagnosis engine: rules that map symptoms to
// causes, the commands that confirm them and the documented fix.
//
// Rules are data (YAML, embedded; --rules DIR adds or overrides by id).
// Each rule's `when` is an expr-lang expression compiled against Env, the
// documented view of a Frame (a host snapshot and/or a capture analysis),
// evaluated once per object of the rule's scope (host, port, priority, qp,
// flow). A rule whose data is absent on this host cannot be evaluated and
// says so; it is never reported healthy. rdmatop never runs a rule's
// confirm or fix commands.
package rules
