package rdmanl

import (
	"context"
	"errors"
	"fmt"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
)

// CommFunc returns the command name of a process, as /proc/PID/comm says.
type CommFunc func(pid uint32) (string, bool)

// Client runs nldev requests over a Conn and parses the answers. It holds
// no state between calls. The ...Context methods give up when their
// context ends (at once with a ContextConn, between requests otherwise).
type Client struct {
	Conn Conn
	// Comm, if set, fills QP.Comm for user QPs.
	Comm CommFunc
}

// order is the byte order of what the Conn answers (orderOf).
func (c *Client) order() nlmsg.Order { return orderOf(c.Conn) }

func (c *Client) do(ctx context.Context, req []byte) ([][]byte, error) {
	if c.Conn == nil {
		return nil, errors.New("rdma netlink: no connection")
	}
	return execute(ctx, c.Conn, req)
}

// Devices lists every RDMA device visible in the caller's network namespace.
func (c *Client) Devices() ([]Device, error) { return c.devices(context.Background()) }

func (c *Client) devices(ctx context.Context) ([]Device, error) {
	r, err := c.do(ctx, DevDumpRequest())
	if err != nil {
		return nil, err
	}
	return parseDevices(c.order(), r)
}

// Ports lists the ports of one device (PORT_GET dump).
func (c *Client) Ports(dev uint32) ([]Port, error) {
	r, err := c.do(context.Background(), PortDumpRequest(dev))
	if err != nil {
		return nil, err
	}
	return parsePorts(c.order(), r)
}

// Port reads one port (PORT_GET, as rdma link show does).
func (c *Client) Port(dev, port uint32) (Port, error) { return c.port(context.Background(), dev, port) }

func (c *Client) port(ctx context.Context, dev, port uint32) (Port, error) {
	r, err := c.do(ctx, PortGetRequest(dev, port))
	if err != nil {
		return Port{}, err
	}
	ps, err := parsePorts(c.order(), r)
	if err != nil {
		return Port{}, err
	}
	if len(ps) != 1 {
		return Port{}, fmt.Errorf("rdma netlink PORT_GET %d/%d: %d ports in the reply", dev, port, len(ps))
	}
	return ps[0], nil
}

// QPs dumps the QPs of one device and fills Comm for user QPs.
func (c *Client) QPs(dev uint32) ([]QP, error) { return c.qps(context.Background(), dev) }

func (c *Client) qps(ctx context.Context, dev uint32) ([]QP, error) {
	r, err := c.do(ctx, QPDumpRequest(dev, 0))
	if err != nil {
		return nil, err
	}
	qps, err := parseQPs(c.order(), r)
	if err != nil {
		return nil, err
	}
	if c.Comm != nil {
		for i := range qps {
			if qps[i].HasPID {
				qps[i].Comm, _ = c.Comm(qps[i].PID)
			}
		}
	}
	return qps, nil
}

// PortStatsContext reads the default hardware counters of one port,
// abandoned when ctx ends.
func (c *Client) PortStatsContext(ctx context.Context, dev, port uint32) (PortStats, error) {
	r, err := c.do(ctx, StatGetRequest(dev, port))
	if err != nil {
		return PortStats{}, err
	}
	ss, err := parseStatsIn(c.order(), r)
	if err != nil {
		return PortStats{}, err
	}
	if len(ss) != 1 {
		return PortStats{}, fmt.Errorf("rdma netlink STAT_GET %d/%d: %d replies", dev, port, len(ss))
	}
	return ss[0], nil
}

// Sys reads the subsystem settings (monitor support among them).
func (c *Client) Sys() (SysInfo, error) {
	r, err := c.do(context.Background(), SysGetRequest())
	if err != nil {
		return SysInfo{}, err
	}
	return parseSys(c.order(), r)
}

// Sample is one tick of RDMA netlink: devices, their ports and QPs.
type Sample struct {
	Devices []Device `json:"devices"`
	Ports   []Port   `json:"ports"`
	QPs     []QP     `json:"qps"`
}

// Sample lists the devices, then reads each port (PORT_GET per port, as
// rdma link does) and dumps the QPs of each device. A device
// that fails (for instance one removed between the listing and its dump)
// is left out and its error joined to err; the others are kept. An error
// listing the devices returns an empty sample.
func (c *Client) Sample() (Sample, error) { return c.SampleContext(context.Background()) }

// SampleContext is Sample, abandoned when ctx ends: what was read before
// is returned with an error wrapping ctx.Err().
func (c *Client) SampleContext(ctx context.Context) (Sample, error) {
	var s Sample
	devs, err := c.devices(ctx)
	if err != nil {
		return s, err
	}
	s.Devices = devs
	var errs []error
	for _, d := range devs {
		if err := ctx.Err(); err != nil {
			errs = append(errs, fmt.Errorf("rdma netlink: %w", err))
			break
		}
		for p := uint32(1); p <= d.NumPorts; p++ {
			port, err := c.port(ctx, d.Index, p)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s/%d: %w", d.Name, p, err))
				continue
			}
			s.Ports = append(s.Ports, port)
		}
		qps, err := c.qps(ctx, d.Index)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s qps: %w", d.Name, err))
		}
		s.QPs = append(s.QPs, qps...)
	}
	return s, errors.Join(errs...)
}
