// In a paste, the output of `ssh HOST cmd` is HOST's: the segment of each prompt takes the last
// ssh hop of its command (options with a value skip it; `user@` is dropped), else the prompt's
// host. Command lines as OpenSSH takes them (ssh(1) synopsis: `ssh [-46AaCf…] [-J destination]
// [-o option] [-p port] destination [command]`); prompts as bash's default PS1 `\u@\h:\w\$ `.
#include <catch2/catch.hpp>

#include <algorithm>

#include "culprit/ingest/sniff.hpp"

using culprit::ingest::host_from_command_line;
using culprit::ingest::segment_text;

TEST_CASE("the last ssh hop of a command names where its output came from", "[ingest][hosts]") {
  CHECK(host_from_command_line("alice@login1:~$ ssh gpu07 nvidia-smi") == "gpu07");
  CHECK(host_from_command_line("alice@login1:~$ ssh -p 2222 -i ~/.ssh/id root@gpu07 'dmesg -T'") == "gpu07");
  CHECK(host_from_command_line("alice@login1:~$ ssh -o StrictHostKeyChecking=no -J bastion gpu07 free -h") == "gpu07");
  CHECK(host_from_command_line("alice@login1:~$ ssh head \"ssh gpu07 nvidia-smi\"") == "gpu07");
  CHECK(host_from_command_line("alice@login1:~$ ssh -t gpu07") == "gpu07");
  // Look-alikes: not an ssh hop, so the output is the prompt's host's.
  CHECK(host_from_command_line("alice@login1:~$ ssh-keygen -t ed25519") == "login1");
  CHECK(host_from_command_line("alice@login1:~$ systemctl status sshd") == "login1");
  CHECK(host_from_command_line("alice@login1:~$ nvidia-smi") == "login1");
  CHECK(host_from_command_line("ssh-keygen -t ed25519").empty());
}

TEST_CASE("a login-node paste: each command's output is the host it ran on", "[ingest][hosts]") {
  const std::string paste =
      "alice@login1:~$ tail -n 2 slurm-4242.out\n"
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
      "srun: error: gpu07: task 0: Out Of Memory\n"
      "alice@login1:~$ ssh gpu07 nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv\n"
      "pid, process_name, used_memory [MiB]\n"
      "90211, python, 10240 MiB\n"
      "alice@login1:~$ ssh -p 2222 bob@gpu08 'free -h'\n"
      "               total        used        free      shared  buff/cache   available\n"
      "Mem:            62Gi        10Gi        40Gi       1.0Gi        12Gi        51Gi\n";
  const auto segments = segment_text(paste);
  std::vector<std::string> hosts;
  for (const auto& s : segments)
    if (!s.text.empty() && s.text.find("$ ") == std::string_view::npos) hosts.push_back(s.host);
  REQUIRE(hosts.size() >= 3);
  CHECK(hosts.front() == "login1");  // the job's output read on the login node (a launcher line moves it)
  CHECK(std::find(hosts.begin(), hosts.end(), "gpu07") != hosts.end());
  CHECK(hosts.back() == "gpu08");
}

// Issue 37, finding 15: Ubuntu's default coloured PS1 as `script` and `tmux capture-pane -e`
// record it (`\[\e[01;32m\]\u@\h\[\e[00m\]:\[\e[01;34m\]\w\[\e[00m\]\$ `) is a prompt: it cuts
// the paste and names its host, as the same prompt without colours does.
TEST_CASE("an ANSI-coloured shell prompt is a prompt", "[ingest][hosts][prompt]") {
  const std::string coloured = "\x1b[01;32malice@gpu-node-07\x1b[00m:\x1b[01;34m~/proj\x1b[00m$ nvidia-smi";
  CHECK(host_from_command_line(coloured) == "gpu-node-07");
  CHECK(host_from_command_line("(venv) \x1b[01;32mbob@gpu3\x1b[00m:\x1b[01;34m~\x1b[00m$ ssh gpu4 free -h") == "gpu4");
  CHECK(host_from_command_line("^[[01;32malice@gpu9^[[00m:^[[01;34m~^[[00m$ ls") == "gpu9");  // pasted as text
  const std::string paste = coloured + "\n"
      "+-----------------------------------------------------------------------------------------+\n"
      "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |\n"
      "\x1b[01;32malice@gpu-node-07\x1b[00m:\x1b[01;34m~/proj\x1b[00m$ free -h\n"
      "               total        used        free      shared  buff/cache   available\n"
      "Mem:            62Gi        10Gi        40Gi       1.0Gi        12Gi        51Gi\n";
  const auto segments = segment_text(paste);
  std::size_t on_host = 0;
  for (const auto& s : segments)
    if (!s.text.empty()) {
      CHECK(s.host == "gpu-node-07");
      ++on_host;
    }
  CHECK(on_host >= 2);
}

// Issue 37, finding 7: `sacct` typed on a login node reports on the job, which ran elsewhere:
// its output is not login01's (a second OOM "on login01" was reported from it).
TEST_CASE("a cluster query's output is not the prompt host's", "[ingest][hosts][prompt]") {
  CHECK(host_from_command_line("[alice@login01 ~]$ sacct -j 4412873 --format=JobID,State,MaxRSS").empty());
  CHECK(host_from_command_line("alice@login01:~$ sudo /usr/bin/scontrol show job 4412873").empty());
  CHECK(host_from_command_line("alice@gpu-03:~$ kubectl describe pod trainer-0") == "gpu-03");  // a node's own
  CHECK(host_from_command_line("alice@login01:~$ ssh gpu-a017 sstat -j 4412873") == "gpu-a017");
  CHECK(host_from_command_line("alice@login01:~$ cat slurm-4412873.out") == "login01");
  CHECK(host_from_command_line("alice@login01:~$ sacctmgr show user") == "login01");
}
