// Package repo holds the tests about the repository itself rather than
// any package of rdmatop: what git tracks. It has no code of its own.
package repo
