// Package nlmsg is rdmatop's one netlink codec: messages (struct
// nlmsghdr), attributes (struct nlattr), requests, and the reading of a
// request's replies (Reply: the end of the reply, the kernel's errno and
// extended ACK text, interrupted dumps, overruns), for RDMA netlink,
// rtnetlink and dcbnl alike; nlsock sends and receives. Netlink is in the
// byte order of the host that wrote it (its kernel's native integers):
// what this host's kernel answers decodes in Native order, a recording
// from a host of the other order in that host's (Order, OrderNamed), and
// messages and attributes keep the order they were split with. Requests
// are built in Native order. Decoding is zero-copy: a Message's Payload
// and an Attr's Data point into the buffer they came from.
//
// Why not github.com/mdlayher/netlink's attribute decoder: it copies every
// attribute's data, and a QP dump of 10,000 QPs is some 200,000 attributes
// per sample.
package nlmsg
