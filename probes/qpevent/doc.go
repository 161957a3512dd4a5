// Package qpevent turns successive QP dumps (rdmanl.QP lists, from RDMA
// netlink or from recorded `rdma -j res show qp` output) into events: QP
// created, QP destroyed, QP state transition. Transitions into ERR or SQE
// are errors: a QP in ERR has stopped moving data, and nothing else tells
// an outside observer (the verbs async event goes only to the process
// owning the QP, and rxe raises none).
//
// Detection is pure: the caller gives the dumps and their times.
package qpevent
