// Package alias maps vendor counter names to rdmatop's canonical names, so
// that views and rules never hard-code a vendor's spelling.
//
// # The table
//
// Counters live in namespaces ("tables"): one per RDMA driver's
// hw_counters, one for the IBTA PMA counters every driver with a PMA
// exposes under ports/N/counters/, and one per netdev driver's ethtool -S
// names that matter to RoCE. A mapping is (table, native name) → canonical
// name, with a scale for unit differences (the PMA data counters count
// 4-byte words: port_xmit_data × 4 = tx_bytes).
//
//	table            source                                    kernel source of the names
//	ibta             /sys/class/infiniband/D/ports/N/counters  drivers/infiniband/core/sysfs.c (pma_attrs*)
//	mlx5             ports/N/hw_counters                       drivers/infiniband/hw/mlx5/counters.c
//	mlx5_ethtool     ethtool -S (mlx5_core)                    drivers/net/ethernet/mellanox/mlx5/core/en_stats.c
//	bnxt_en_ethtool  ethtool -S (bnxt_en)                      drivers/net/ethernet/broadcom/bnxt/bnxt_ethtool.c
//	ice_ethtool      ethtool -S (ice)                          drivers/net/ethernet/intel/ice/ice_ethtool.c
//	rxe              ports/N/hw_counters                       drivers/infiniband/sw/rxe/rxe_hw_counters.c
//	bnxt_re          ports/N/hw_counters                       drivers/infiniband/hw/bnxt_re/hw_counters.c
//	irdma            ports/N/hw_counters                       drivers/infiniband/hw/irdma/verbs.c (irdma_hw_stat_names)
//	erdma            ports/N/hw_counters                       drivers/infiniband/hw/erdma/erdma_verbs.c (erdma_descs)
//	efa              ports/N/hw_counters                       drivers/infiniband/hw/efa/efa_verbs.c (EFA_DEFINE_PORT_STATS)
//
// Each entry cites its source; Entries lists them all. A counter may have
// several spellings across kernel versions (irdma renamed iwInRdmaReads to
// InRdmaReads; mlx5 representors prefix q-counters with vport_): all of a
// counter's spellings sit in one entry. Per-priority ethtool names are
// written with <p> for the priority (rx_prio<p>_pause) and map to a
// canonical base plus a _prio<p> suffix (rx_pfc_pause_frames_prio3).
//
// The ethtool table is chosen by the netdev's driver (TableFor with
// SourceEthtool): mlx5_core, bnxt_en and ice have one; irdma's other
// netdev, i40e, has none, so ice's names are never read for it. Every
// driver's per-priority PFC counters land on the same canonical names:
// pause (XOFF) frames on rx/tx_pfc_pause_frames_prio<p>, paused time in
// microseconds on rx/tx_pfc_pause_duration_prio<p> (mlx5 and bnxt_en count
// µs; ice has no duration), XON frames on rx/tx_pfc_resume_frames_prio<p>.
//
// Canonical names are snake_case and say what the counter means; each has
// an Info (description, unit, counter or gauge, whether rising is bad).
// Names no table maps are not dropped: callers keep them under their native
// spelling.
//
// Deliberately not mapped, because their meaning differs from the nearest
// canonical name: mlx5 ethtool rx_packets/rx_bytes (netdev software
// counters that exclude RDMA traffic), irdma ip4*/ip6*/tcp*/RxUDP (IP-,
// TCP- and UDP-level counts of the iWARP/RoCE engine), efa's and bnxt_re's
// work-request counts, bnxt_en's per-ring ("[3]: rx_discards") and per-CoS
// queue counters (a CoS queue is not a priority), and every counter only
// one vendor has, except bnxt_en's pause-storm detections
// (continuous_pause_events), which say what mlx5's storm counters say in
// other words and would otherwise go unseen.
//
// The package is a pure table: no I/O, no state.
package alias
