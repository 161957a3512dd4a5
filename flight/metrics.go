package flight

import "github.com/prometheus/client_golang/prometheus"

// Collector returns the recorder's metrics for a Prometheus registry
// (docs/exporter.md, "Flight recorder").
func (r *Recorder) Collector() prometheus.Collector { return collector{r} }

type collector struct{ r *Recorder }

var (
	descIncidents  = prometheus.NewDesc("rdmatop_flight_incidents_total", "Incidents the flight recorder wrote, by the trigger that started each.", []string{"trigger"}, nil)
	descSuppressed = prometheus.NewDesc("rdmatop_flight_suppressed_triggers_total", "Triggers that came within the cooldown after an incident and started none.", []string{"trigger"}, nil)
	descMerged     = prometheus.NewDesc("rdmatop_flight_merged_triggers_total", "Triggers that came while an incident was written and extended it.", nil, nil)
	descDropped    = prometheus.NewDesc("rdmatop_flight_packets_dropped_total", "Packets of an incident's window not written: the incident alone reached --max-disk.", nil, nil)
	descUnrecorded = prometheus.NewDesc("rdmatop_flight_packets_unrecorded_total", "Captured frames within the incidents written that they lack (memory let go of them before the disk took them, --max-disk, the recording queue): each incident's check reads them as capture-incomplete.", nil, nil)
	descEvicted    = prometheus.NewDesc("rdmatop_flight_packets_evicted_total", "Packets let go from memory for --keep-packets before --keep: the packets reach back less far than the ticks.", nil, nil)
	descRemoved    = prometheus.NewDesc("rdmatop_flight_incidents_removed_total", "Incidents removed, oldest first, to keep the directory within --max-disk.", nil, nil)
	descFailures   = prometheus.NewDesc("rdmatop_flight_failures_total", "Incidents that could not be written or were cut short by the directory's errors (a full disk, permissions).", nil, nil)
	descMem        = prometheus.NewDesc("rdmatop_flight_memory_bytes", "Bytes the flight recorder's memory holds: packets and compressed host ticks.", nil, nil)
	descDisk       = prometheus.NewDesc("rdmatop_flight_disk_bytes", "Bytes the incidents take in the flight recorder's directory.", nil, nil)
)

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descIncidents, descSuppressed, descMerged, descDropped, descUnrecorded, descEvicted, descRemoved, descFailures, descMem, descDisk} {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	s := c.r.Stats()
	for _, k := range TriggerKinds {
		ch <- prometheus.MustNewConstMetric(descIncidents, prometheus.CounterValue, float64(s.Incidents[k]), k)
		ch <- prometheus.MustNewConstMetric(descSuppressed, prometheus.CounterValue, float64(s.Suppressed[k]), k)
	}
	ch <- prometheus.MustNewConstMetric(descMerged, prometheus.CounterValue, float64(s.Merged))
	ch <- prometheus.MustNewConstMetric(descDropped, prometheus.CounterValue, float64(s.PacketsDropped))
	ch <- prometheus.MustNewConstMetric(descUnrecorded, prometheus.CounterValue, float64(s.Unrecorded))
	ch <- prometheus.MustNewConstMetric(descEvicted, prometheus.CounterValue, float64(s.Evicted))
	ch <- prometheus.MustNewConstMetric(descRemoved, prometheus.CounterValue, float64(s.Removed))
	ch <- prometheus.MustNewConstMetric(descFailures, prometheus.CounterValue, float64(s.Failures))
	ch <- prometheus.MustNewConstMetric(descMem, prometheus.GaugeValue, float64(s.MemBytes))
	ch <- prometheus.MustNewConstMetric(descDisk, prometheus.GaugeValue, float64(s.DiskBytes))
}
