// CULPRIT_ADDRESS_SANITIZER: 1 in a build under AddressSanitizer, else 0. GCC says so with
// __SANITIZE_ADDRESS__; clang 14 (the fuzz build's) only through __has_feature.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define CULPRIT_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CULPRIT_ADDRESS_SANITIZER 1
#endif
#endif
#ifndef CULPRIT_ADDRESS_SANITIZER
#define CULPRIT_ADDRESS_SANITIZER 0
#endif
