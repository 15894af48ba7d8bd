// The same bulk transfer as one netsim ttcp transfer, in ns-3, for a speed comparison: two
// nodes on a 100 Mb/s point-to-point link with MTU 9188 and no delay, one TCP connection
// (ns-3's own TCP, not Tahoe) with the given buffers sending BYTES octets. Prints one JSON
// line with the virtual and wall-clock time the run took.
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

using namespace ns3;

// When the sink got the last octet: the transfer's virtual duration (the simulation itself
// runs on while the idle connection's timers expire).
static Time last_rx;
static void OnRx(Ptr<const Packet>, const Address&)
{
    last_rx = Simulator::Now();
}

int main(int argc, char** argv)
{
    uint64_t bytes = 32u << 20;
    uint32_t buffer = 49152;
    CommandLine cmd;
    cmd.AddValue("bytes", "octets to send", bytes);
    cmd.AddValue("buffer", "send and receive buffer, octets", buffer);
    cmd.Parse(argc, argv);

    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(9148));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(buffer));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(buffer));

    NodeContainer nodes;
    nodes.Create(2);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(9188));
    p2p.SetChannelAttribute("Delay", StringValue("0ms"));
    NetDeviceContainer devices = p2p.Install(nodes);
    InternetStackHelper stack;
    stack.Install(nodes);
    Ipv4AddressHelper address;
    address.SetBase("10.0.0.0", "255.255.255.0");
    Ipv4InterfaceContainer ifs = address.Assign(devices);

    uint16_t port = 5001;
    BulkSendHelper source("ns3::TcpSocketFactory", InetSocketAddress(ifs.GetAddress(1), port));
    source.SetAttribute("MaxBytes", UintegerValue(bytes));
    source.SetAttribute("SendSize", UintegerValue(8192));
    ApplicationContainer tx = source.Install(nodes.Get(0));
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer rx = sink.Install(nodes.Get(1));
    rx.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&OnRx));
    tx.Start(Seconds(0.0));
    rx.Start(Seconds(0.0));

    auto start = std::chrono::steady_clock::now();
    Simulator::Run();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    uint64_t got = DynamicCast<PacketSink>(rx.Get(0))->GetTotalRx();
    double virt = last_rx.GetSeconds();
    Simulator::Destroy();
    std::printf("{\"record\":\"ns3\",\"bytes\":%llu,\"received\":%llu,\"virtual_s\":%.9f,"
                "\"wall_s\":%.6f}\n",
                (unsigned long long)bytes, (unsigned long long)got, virt, wall);
    return got == bytes ? 0 : 1;
}
