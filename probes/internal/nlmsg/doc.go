// Package nlmsg is rdmatop's one netlink codec: messages (struct
// nlmsghdr), attributes (struct nlattr), requests, and the reading of a
// request's replies (ReadReply: the end of the reply, the kernel's errno
// and extended ACK text, interrupted dumps, overruns), for RDMA netlink,
// rtnetlink and dcbnl alike; nlsock sends and receives. Netlink is in the
// host's byte order (the
// kernel writes its native integers), so everything here is
// binary.NativeEndian: an s390x host gets big-endian messages and decodes
// them as such. Decoding is zero-copy: a Message's Payload and an Attr's
// Data point into the buffer they came from.
//
// Why not github.com/mdlayher/netlink's attribute decoder: it copies every
// attribute's data, and a QP dump of 10,000 QPs is some 200,000 attributes
// per sample.
package nlmsg
